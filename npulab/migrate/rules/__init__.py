"""The analyzer's rules, one module per concern; each offers ``check(ctx)`` (and optionally ``prepare``).

Order matters: the specific rules claim the nodes they report (the ``"cuda"`` in
``torch.autocast("cuda")``, the ``device_map`` value) before the generic string rule looks at what is left.
"""

from npulab.migrate.rules import methods, packages, strings, torch_api

RULES = (methods, torch_api, packages, strings)
