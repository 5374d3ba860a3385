"""The Da Vinci core data: buffer sizes from the platform file, the two data paths, the drawing."""

from npulab.hw import davinci


def test_buffer_sizes_from_the_platform_file():
    sizes = {name: fig.value for name, fig in davinci.buffer_sizes().items()}
    assert sizes == {"L1": 512 * 1024, "L0A": 64 * 1024, "L0B": 64 * 1024, "L0C": 128 * 1024, "UB": 192 * 1024,
                     "L2": 192 * 2**20}


def test_data_paths():
    assert davinci.CUBE_PATH == ("GM", "L1", "L0A/L0B", "Cube", "L0C", "FixPipe", "GM")
    assert davinci.VECTOR_PATH == ("GM", "UB", "Vector", "UB", "GM")


def test_drawing_labels_capacities():
    import matplotlib

    matplotlib.use("Agg")
    ax = davinci.draw_datapaths()
    texts = " ".join(t.get_text() for t in ax.texts)
    assert "L0A 64 KiB" in texts and "UB\n192 KiB" in texts and "共 20 个" in texts and "共 40 个" in texts
