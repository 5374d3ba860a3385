"""Link types and the topology drawing, on the course's real 8-card sample."""

from npulab.ascend_tools.smi.topo import parse_topo
from npulab.core.paths import DATA_DIR
from npulab.hw import interconnect

SAMPLE = DATA_DIR / "samples" / "topo_910b3_8card.txt"


def test_sample_is_a_full_hccs_mesh():
    topo = parse_topo(SAMPLE.read_text(encoding="utf-8"))
    assert topo.devices == [f"NPU{i}" for i in range(8)]
    assert topo.is_full_mesh("HCCS") and len(topo.links) == 56
    assert topo.cpu_affinity["NPU0"] == "144-167" and topo.cpu_affinity["NPU7"] == "48-71"
    assert set(topo.legend) >= {"HCCS", "PIX", "PHB", "SYS"}


def test_link_types_follow_ascendcl_values():
    assert interconnect.LINK_TYPES["HCCS"][0] == 0x01
    assert interconnect.LINK_TYPES["SIO"][0] == 0x20
    assert "HCCS" in interconnect.describe("hccs")
    assert "图例" in interconnect.describe("UB")


def test_draw_topology():
    import matplotlib

    matplotlib.use("Agg")
    topo = parse_topo(SAMPLE.read_text(encoding="utf-8"))
    ax = interconnect.draw_topology(topo, title="8 × 910B3")
    assert len(ax.lines) == 28  # one line per unordered pair
    assert "28" in ax.get_legend().get_texts()[0].get_text()
