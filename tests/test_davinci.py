"""The Da Vinci core data: buffer sizes from the platform file, the two data paths, the drawing."""

from npulab.hw import davinci


def test_buffer_sizes_from_the_platform_file():
    sizes = {name: fig.value for name, fig in davinci.buffer_sizes().items()}
    assert sizes == {"L1": 512 * 1024, "L0A": 64 * 1024, "L0B": 64 * 1024, "L0C": 128 * 1024, "UB": 192 * 1024,
                     "L2": 192 * 2**20}


def test_every_buffer_on_a_data_path_has_a_size_from_the_platform_file():
    sizes = davinci.buffer_sizes()
    for path in (davinci.CUBE_PATH, davinci.VECTOR_PATH):
        assert path[0] == path[-1] == "GM", "data comes from and goes back to global memory"
        buffers = {part for stage in path for part in stage.split("/")} - {"GM", "Cube", "Vector", "FixPipe"}
        assert buffers and buffers <= set(sizes), buffers - set(sizes)
    # the Cube reads its operands from L0A/L0B and writes L0C; the Vector unit works in UB only
    cube = davinci.CUBE_PATH
    assert cube.index("L0A/L0B") < cube.index("Cube") < cube.index("L0C")
    assert set(davinci.VECTOR_PATH) & {"L0A/L0B", "L0C", "L1"} == set()


def test_drawing_labels_capacities():
    import matplotlib

    matplotlib.use("Agg")
    ax = davinci.draw_datapaths()
    texts = " ".join(t.get_text() for t in ax.texts)
    assert "L0A 64 KiB" in texts and "UB\n192 KiB" in texts and "共 20 个" in texts and "共 40 个" in texts
