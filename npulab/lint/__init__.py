"""``python -m npulab lint-npu``: static checks of the notebook cells that need an Ascend NPU.

Cells tagged ``npu`` (and ``skip-execution``) never run in CI, so they are checked without running, against the
released artifacts of every framework and tool they call. One concern a module:

- ``notebook``: one notebook's cells — parsing (IPython magics, ``!shell`` lines), ``torch_npu.X`` / ``torch.npu.X`` /
  ``torchair.X`` / ``npugraph_ex.X`` names against the pinned wheel (npulab.pytorch.torch_npu_names), leaf cells, and
  the deeper checks below;
- ``calls`` with ``signatures``: every call's positional count and keywords against the released sources, and
  (``api_values``) the values and types of its arguments: data rules (what a parameter accepts and the messages in
  ``allowed_values``, constants read from source in ``source_literals``), the called function's own validation code
  (``source_validations``, ``value_tests``: number tests that raise, switches tested only for truth, MindSpore's checking helpers), torch's
  annotations (``annotations``: ``Literal[...]`` included, decorator types, keywords a function keeps only to warn
  about), and (``schema_types``) the literal types of ``torch.ops.npu`` operator schemas; ``relations``: what the
  arguments make the function refuse together, by its own statements run on the call's literals (``own_checks``:
  expressions in ``own_expressions``, statements in ``own_statements``, over the values of ``walked``: ``if num_workers == 0 and prefetch_factor is not None: raise``, a constructor's
  warn-and-reset checks, a ``__setattr__``), following what it reaches (``callees``: base constructors, helpers,
  closures, constructors of the objects it builds, property setters, the wrapper of a validating decorator
  (``decorators``); walked, never run), by documented rules held as data (api_values.yaml ``refused``) and by
  the limits torch_npu's operator documentation states (``op_docs``, its phrases in ``op_doc_phrases``: the
  wheel's ``_op_plugin_docs.py``) and torch's own docstrings (``torch_docs``: ``Args:`` paragraphs); ``instances``: calls on objects a cell built (``ds = ds.batch(…)``), the method found in the object's class;
- ``meta_run``: the cell's straight-line torch code run by a whitelisting interpreter on PyTorch's ``meta`` device
  (shapes and dtypes, no data), so torch's own kernels check the shapes, dtypes and types a call gets;
- ``ms_run``: the cell's straight-line MindSpore code run by the same interpreter, whitelisting MindSpore and numpy,
  on the CPU in PyNative mode on the small tensors the cell builds (MindSpore has no meta device), so MindSpore's
  own validators and shape inference check what a call gets; its data pipeline (``mindspore.dataset``) and ``amp``
  are called only in a forked child; ``ms_log_config``: MindSpore's log variables by ``_verify_config`` of its log.py;
- ``triton_run``: a cell's literal Triton kernels and their launches run under Triton's interpreter
  (``TRITON_INTERPRET=1``) in a forked child, on small CPU tensors, so Triton's own checks judge them; the upstream
  refusals Triton-Ascend documents as lifted (triton_ascend_lifted.yaml) are not reported;
  ``triton_front_end``: in the same child, a launch the interpreter ran clean is lowered to TTIR by Triton's own
  code generator (compiled mode, a stand-in driver, nothing launched), so the checks the interpreter skips judge it;
- ``options``: values set on torchair config objects (``config.mode = …``) against their OptionValue lists;
- ``devices``: device strings (``torch.device("npu:0")``, ``device=`` / ``*_device=``, ``.to(...)``) against c10's
  grammar and the device types an Ascend machine has; ``distributed``: torch.distributed backends and init methods
  against torch's and torch_npu's registrations; ``compile_backends``: ``torch.compile(backend="…")`` likewise;
- ``command_flags``: command lines' flags against tables extracted from the released tools, their values, and
  documented relations between two flags;
- ``env_checker``: Ascend environment variables against the wheel and CANN's documented list (npulab.env.env_vars),
  and the values given to documented variables (npulab.env.env_values, read with npulab.env.value_grammar, the
  small grammar of documented values — enum, int range, ip, list, key:value … — that ``explain`` uses too);
- ``features``: features against the release that introduced them (and the cells' ``# stack:``);
- ``expected_output``: what an ``npu`` cell says it would print on its ``%%npu`` line;
- ``context``: the lazily loaded sources and tables of one run; ``command``: the command line.
"""
