from npulab.migrate import api_map


def test_seed_has_ten_pairs_and_rule_is_cuda_to_npu():
    seed = api_map.pairs(seed_only=True)
    assert len(seed) == 10
    for row in seed:
        assert row["npu"] == row["cuda"].replace("cuda", "npu")


def test_table_renders():
    html = api_map.table()._repr_html_()
    assert html.count("<tr>") == len(api_map.pairs()) + 1
    assert "torch.npu.synchronize()" in html


def test_npu_names_exist_in_the_real_torch_npu_wheel(torch_npu_symbols):
    missing = [name for name in api_map.npu_api_names() if not torch_npu_symbols.resolve(name)]
    assert not missing, f"名字不在 torch_npu 中：{missing}"
