"""npulab: the helper package of the course 昇腾 NPU 编程实战.

Grouped by concern, not by chapter (most modules serve several chapters). Lower layers never import higher ones:
``core`` imports nothing else of npulab; ``hw``, ``env``, ``pytorch``, ``mindspore``, ``ascend_tools`` and
``kernels`` build on ``core``; ``migrate`` and ``bench`` above them; ``lint``, ``course``, ``workshop`` and ``site``
sit on top; ``testing`` holds test doubles.

- ``core``          device (npu → cuda → cpu), timing (warm-up, sync, median), comparisons and verdicts chosen
                    from the numbers, the machine-and-load footer, provenance, peaks, plotting,
                    paths and package data, notebook cells (the ``npu`` tag), environment summary, CLI plumbing
- ``lint``          lint-npu: the NPU cells checked against the released packages (names, signatures, values
                    and types, command-line flags, environment variables, version features)
- ``course``        the lessons' machinery: the ``%%npu`` magic, recording on Ascend hardware, quizzes, the labs'
                    checks, the measuring lessons (``course.measures``) and the audit of the verdicts they print,
                    rendered tables, the English edition (``edition``, ``glossary``)
- ``workshop``      workshops: seat pool, hub environment and accounts, preflight, agenda, containers, Kubernetes
- ``site``          the published book: the Sphinx extension, post-processing, downloads, the tools page
- ``env``           CANN install inspection, compatibility tables, the CANN stack, shell sessions, visible devices,
                    the CANN lines a MindSpore wheel accepts, doctor, explain (error logs → causes and fixes)
- ``hw``            Da Vinci core, Cube unit, data formats, roofline, interconnect, collectives (α–β model)
- ``kernels``       writing operators: the Ascend C vector pipeline as a runnable model, Triton kernels run by the
                    interpreter, the Ascend launch checker and the kernel-path decision table
- ``pytorch``       the shared ResNet-50, training-step timing, torch.compile / graphs / device memory,
                    profiler traces, precision (first non-finite module, layer-by-layer compare), msprobe on the
                    CPU, distributed set-up, the torch_npu name index
- ``mindspore``     runtime (log level set once, on import), ResNet-50, weight conversion, API pairs, step timing
- ``ascend_tools``  npu-smi parsers, ascend-dmi, ATC command lines, ONNX export, the pyACL pipeline,
                    ASCEND_PROFILER_OUTPUT readers and the ``trace`` tool
- ``llm``           large language models: KV-cache bytes for MHA/GQA/MQA/MLA configs, the HBM planner and
                    ``llm-plan``, the small transformers decoder and LoRA helpers of the capstone lesson
- ``migrate``       the CUDA → NPU analyzer, the CUDA → NPU API map, the GPU → NPU strategy tool
- ``bench``         ``python -m npulab bench …``: matmul, bandwidth, resnet50, allreduce, compile
- ``testing``       test doubles: a synthetic CANN tree, a recording stand-in for pyACL
- ``data``          the data files (tables with their public sources, real tool outputs), shipped with the package

Chapter → modules:

- 01 environment: ``env.cann_install``, ``env.compatibility``, ``env.shell_session``, ``env.visible_devices``,
  ``env.doctor``, ``env.explain``, ``migrate.api_map``, ``core.timing``, ``core.comparison``, ``core.verdicts``,
  ``core.machine``, ``core.peaks``
- 02 architecture: ``hw.*``, ``env.cann_stack``
- 03 PyTorch: ``migrate``, ``pytorch.resnet``, ``pytorch.train``, ``pytorch.compile``
- 04 MindSpore: ``mindspore.*``, ``env.mindspore_cann``
- 05 tools: ``ascend_tools.*``, ``bench``, ``pytorch.profile_trace``, ``pytorch.precision``
- 06 advanced: ``kernels.ascendc``, ``kernels.triton_kernels``, ``kernels.triton_launch``, ``kernels.kernel_paths``, ``llm.kv_cache``, ``llm.decoder``, ``migrate.strategy``, ``pytorch.distributed``, ``hw.collectives``
- workshops and labs: ``workshop`` (seats, CANN environment, preflight, agenda), ``course.quiz``, ``course.labs``

The command line is ``python -m npulab <tool> ...`` (tools are imported only when asked for).
"""

__version__ = "0.2.0"


def load_ipython_extension(ipython):  # pragma: no cover - thin IPython hook
    """``%load_ext npulab`` registers the ``%%npu`` cell magic; on a workshop server it also says the seat."""
    from npulab.course.npu_magic import register_magics
    from npulab.workshop.mode import current_seat, seat_line

    register_magics(ipython)
    seat = current_seat()
    if seat is not None:
        print(seat_line(seat))
