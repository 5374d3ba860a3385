"""The CANN stack data: layers in order with CUDA counterparts, tables, version examples, the diagram."""

import pytest

from npulab.env import cann_install, cann_stack, compatibility
from npulab.testing import synthetic_cann

LAYER_ORDER = ["driver", "runtime", "operators", "ge", "ascendcl", "hccl", "frameworks"]


def test_layers_bottom_to_top_with_cuda_counterparts():
    layers = cann_stack.layers()
    assert [item.id for item in layers] == LAYER_ORDER
    for item in layers:
        assert item.name and item.cuda and item.package and item.components and item.role


def test_ge_is_a_user_space_toolkit_component_not_the_driver():
    ge = cann_stack.layer("ge")
    assert "Toolkit" in ge.package and "用户态" in ge.runs_on
    assert "HDK" in cann_stack.layer("driver").package
    with pytest.raises(KeyError, match="可选"):
        cann_stack.layer("tsc")


def test_title_counts_layers_from_the_data():
    assert cann_stack.title().startswith(f"CANN 软件栈：{len(cann_stack.layers())} 层软件 + 硬件")


def test_tables_are_complete_and_sourced():
    sources = {"facts41", "facts32", "facts21", "facts7", "facts45", "seed"}
    for row in cann_stack.tools():
        assert row["purpose"] and row["cann"] and row["cuda"] and row["source"] in sources
    names = {row["name"] for row in cann_stack.env_vars()}
    assert "ASCEND_RT_VISIBLE_DEVICES" in names and "ASCEND_LAUNCH_BLOCKING" in names
    for row in cann_stack.env_vars():
        assert row["purpose"] and row["cuda"] and row["source"] in sources
    assert {step["layer"] for step in cann_stack.op_path()} <= set(LAYER_ORDER)


def test_version_examples_parse_with_npulab_cann_and_classify():
    results = {e["file"]: cann_stack.read_version_example(e) for e in cann_stack.version_examples()}
    cfg = results["ascend-toolkit/latest/version.cfg"]
    assert cfg == {"version": "8.0.1", "inner_version": "7.6.0.2.220"}
    assert compatibility.classify_version_string(cfg["version"]).kind == "cann"
    assert compatibility.classify_version_string(cfg["inner_version"]).kind == "internal"
    driver = results["driver/version.info"]
    assert compatibility.classify_version_string(driver["version"]).kind == "hdk"
    assert compatibility.classify_version_string(driver["inner_version"]).kind == "product_internal"
    assert results["cann/aarch64-linux/ascend_toolkit_install.info"]["version"] == "8.5.0"


@pytest.mark.parametrize("layout, version", [("legacy", "8.0.0"), ("cann", "8.5.0")])
def test_layer_folders_exist_in_a_synthetic_install(tmp_path, layout, version):
    root = synthetic_cann.make_synthetic_install(tmp_path, layout=layout, version=version)
    home = cann_install.describe(root).primary.path
    found = cann_stack.layer_paths(root, home)
    assert set(found) == set(LAYER_ORDER)
    assert all(exists for paths in found.values() for _, exists in paths)
    assert found["frameworks"] == []  # torch_npu and MindSpore are pip packages, not part of CANN


def test_draw_has_one_box_per_layer_and_hardware():
    import matplotlib

    matplotlib.use("Agg")
    ax = cann_stack.draw(highlight=["ge"])
    assert len(ax.patches) == 2 * (len(LAYER_ORDER) + 1)
    assert ax.get_title() == cann_stack.title()


def test_hccl_ships_in_the_ops_package_since_cann_8_5():
    """CANN 9.0 install guide (instg_0003): HCCL, HIXL, DVPP and the aclnn libraries are in the ops package."""
    assert "ops" in cann_stack.layer("hccl").package and "HIXL" in cann_stack.layer("hccl").package
    ascendcl = cann_stack.layer("ascendcl").package
    assert ascendcl.startswith("CANN Toolkit") and "aclnn" in ascendcl and "DVPP" in ascendcl
