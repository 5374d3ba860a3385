"""lint-npu round 8 (issue 36): argument types from torch's generated stubs and MindSpore's generated primitives,
value sets written as != / == chains, checks of a function the parameter is handed to, a **kwargs function's loop
over its keywords, a docstring's choice line, and documented values of more variables and flags. The snippets are
not the case sets': other functions, values and spellings."""

from __future__ import annotations

import pytest
from test_lint_values import lint  # noqa: F401  (the module's fixture: one npu cell through check_notebook)

TORCH = "import torch\nimport torch.nn.functional as F\nx = torch.rand(2, 3)\n"
MS = "import mindspore as ms\nfrom mindspore import nn, ops\n"


@pytest.mark.parametrize("code", [
    TORCH + "p = torch.randperm('8')",                        # n: _int | SymInt
    TORCH + "s = torch.empty_strided(4, (1,))",               # size: _size refuses a bare number
    TORCH + "torch.set_num_interop_threads('2')",             # torch/_C/__init__.pyi: _int
    TORCH + "v = torch.kthvalue(x, 1.5)",                     # k: _int, bound positionally to the fitting overload
    TORCH + "y = F.grid_sample(x, x, mode='linear')",         # mode != 'bilinear' and mode != 'nearest' and …
    TORCH + "y = F.embedding_bag(x, x, mode='median')",       # if mode == 'sum' … elif … else: raise
    TORCH + "bag = torch.nn.EmbeddingBag(10, 4, mode='median')",  # forward hands self.mode to F.embedding_bag
    TORCH + "y = F.pad(x, (1, 1), mode='wrap')",              # the docstring's choice line
    TORCH + "torch.use_deterministic_algorithms('yes')",      # mode: builtins.bool
    MS + "s = ops.Softmax(axis='1')",                         # type_it(…, DT_INT, DT_TUPLE_INT)
    MS + "s = nn.Softmax(axis=0.5)",                          # nn.Softmax builds ops.Softmax(axis)
    MS + "ms.set_context(save_graphs=7)",                     # for key, value in kwargs.items(): if key == …
    MS + "import numpy as np\ny = ops.pad(ms.Tensor(np.ones((2, 2))), (1, 1), mode='wrap')",
    # __init__ tests the property self.num_samples, which returns self._num_samples, the parameter given
    TORCH + "from torch.utils.data import RandomSampler\ns = RandomSampler(range(10), num_samples=-3)",
])
def test_wheel_checks_refuse(lint, code):  # noqa: F811
    assert [f.kind for f in lint(code)] == ["argument-value"]


@pytest.mark.parametrize("code", [
    TORCH + "p = torch.randperm(8)",
    TORCH + "s = torch.empty_strided((4,), (1,))",
    TORCH + "torch.set_num_interop_threads(2)",
    TORCH + "v = torch.kthvalue(x, 1, 0)",
    TORCH + "y = torch.full([2, 2], 0.5)",
    TORCH + "y = torch.arange(0.0, 1.0, 0.25)",
    TORCH + "y = torch.sum(x, (0, 1))",
    TORCH + "y = F.max_pool2d(x.unsqueeze(0), 2)",  # a (C, H, W) input: torch's kernel refuses a 2-D one
    TORCH + "y = F.grid_sample(torch.rand(1, 1, 4, 4), torch.rand(1, 2, 2, 2), mode='bicubic', "
            "padding_mode='reflection', align_corners=False)",  # (N, C, H, W) and its (N, H, W, 2) grid
    TORCH + "bag = torch.nn.EmbeddingBag(10, 4, mode='sum')",
    TORCH + "y = F.pad(x, (1, 1), 'replicate')",
    TORCH + "torch.use_deterministic_algorithms(False, warn_only=True)",
    MS + "s = ops.Softmax(axis=(0, 1))",
    MS + "s = nn.Softmax(axis=-2)",
    MS + "ms.set_context(save_graphs=True)",
    MS + "import numpy as np\ny = ops.pad(ms.Tensor(np.ones((2, 2))), (1, 1), mode='circular')",
    TORCH + "from torch.utils.data import RandomSampler\ns = RandomSampler(range(10), replacement=True, num_samples=20)",
])
def test_correct_calls_pass(lint, code):  # noqa: F811
    assert lint(code) == []


@pytest.mark.parametrize("code, kind", [
    ('import os\nos.environ["GLOG_logtostderr"] = "yes"', "env-value"),
    ('import os\nos.environ["OPTIMIZE"] = "1"', "env-value"),
    ('import os\nos.environ["DATASET_ENABLE_NUMA"] = "true"', "env-value"),
    ('import os\nos.environ["MS_DATASET_SINK_QUEUE"] = "0"', "env-value"),
    ('import os\nos.environ["HCCL_ALGO"] = "level0:pipeline;level1:NHR"', "env-value"),
    ("!vllm serve some/model --dtype fp32", "cli-flag"),
    ("!vllm serve some/model --gpu-memory-utilization 1.5", "cli-flag"),
    ("!vllm serve some/model --kv-cache-dtype int4", "cli-flag"),
    ("!torchrun --nproc-per-node=2 --logs-specs=custom train.py", "cli-flag"),
    ("!msrun --worker_num=2 --local_worker_num=2 --bind_core='{\"card0\": [\"0-7\"]}' train.py", "cli-flag"),
])
def test_documented_values_refuse(lint, code, kind):  # noqa: F811
    assert [f.kind for f in lint(code)] == [kind]


@pytest.mark.parametrize("code", [
    'import os\nos.environ["GLOG_logtostderr"] = "1"',
    'import os\nos.environ["OPTIMIZE"] = "False"',
    'import os\nos.environ["MS_ENABLE_NUMA"] = "True"',
    'import os\nos.environ["HCCL_ALGO"] = "level0:NA;level1:NHR"',
    "!vllm serve some/model --dtype float16 --gpu-memory-utilization 0.85 --kv-cache-dtype fp8_e5m2",
    "!torchrun --nproc-per-node=2 --logs-specs=default train.py",
    "!msrun --worker_num=2 --local_worker_num=2 --bind_core='{\"device0\": [\"0-7\"], \"device1\": [\"8-15\"]}' train.py",
    "!msrun --worker_num=2 --local_worker_num=2 --bind_core=True train.py",
    "!echo {x} {'a': 1}",  # IPython substitutions stay placeholders
])
def test_documented_values_pass(lint, code):  # noqa: F811
    assert lint(code) == []
