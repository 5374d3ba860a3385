import pytest


@pytest.fixture(scope="session")
def torch_npu_symbols():
    """Names defined by the real torch_npu wheel pinned in requirements-npu.txt (downloaded once, cached)."""
    from npulab.pytorch.torch_npu_names import pinned_index

    return pinned_index()
