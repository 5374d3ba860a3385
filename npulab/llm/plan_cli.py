"""``python -m npulab llm-plan CONFIG``: KV cache and HBM plan of a model (a Hugging Face config.json) on Ascend cards.

CONFIG is a path to a ``config.json`` or the name of one the course ships (``npulab/data/llm_configs``). Exit code 0
when the requested load fits at the given TP degree, 1 when it does not, 2 for bad input.
"""

from __future__ import annotations

import json
from pathlib import Path

from npulab.core.cli import EXIT_FAIL, EXIT_OK, UsageError
from npulab.core.i18n import t
from npulab.core.paths import DATA_DIR
from npulab.llm import kv_cache

CONFIG_DIR = DATA_DIR / "llm_configs"


def shipped_configs() -> list[str]:
    return sorted(p.stem for p in CONFIG_DIR.glob("*.json"))


def load_config(name_or_path: str) -> dict:
    """A config.json by path, or by the name of a shipped config (``Qwen3-32B``)."""
    path = Path(name_or_path)
    if not path.exists():
        path = CONFIG_DIR / f"{name_or_path}.json"
    if not path.exists():
        raise UsageError(t("llm.no_config", name=repr(name_or_path), shipped=t("kv.list_sep").join(shipped_configs())))
    try:
        config = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise UsageError(t("llm.unreadable", path=path, error=err)) from None
    if not isinstance(config, dict):
        raise UsageError(t("llm.not_object", path=path))
    config.setdefault("_name_or_path", path.stem)
    return config


def build_parser(subparsers, name: str) -> None:
    parser = subparsers.add_parser(name, help=t(f"cli.tool.{name}"),
                                   description=__doc__.splitlines()[0])
    parser.add_argument("config", help=f"config.json 的路径，或 {'、'.join(shipped_configs())}")
    parser.add_argument("--card", default="910B3", help=f"卡型（{'、'.join(kv_cache.CARDS)}；默认 910B3）")
    parser.add_argument("--tp", type=int, default=1, help="张量并行度（默认 1）")
    parser.add_argument("--batch", type=int, default=1, help="同时服务的序列数（默认 1）")
    parser.add_argument("--context", type=int, default=4096, help="每条序列的 token 数（默认 4096）")
    parser.add_argument("--weight-dtype", default="bfloat16", help="权重的数据类型（默认 bfloat16；int8 表示 W8 量化）")
    parser.add_argument("--kv-dtype", default="bfloat16", help="KV cache 的数据类型（默认 bfloat16）")
    parser.add_argument("--utilization", type=float, default=0.9, help="引擎可用的 HBM 比例（vLLM 默认 0.9）")
    parser.add_argument("--reserve-gib", type=float, default=2.0, help="每张卡为激活与运行时预留的 GiB（假设值，默认 2）")
    parser.add_argument("--json", action="store_true", help="输出 JSON")
    parser.set_defaults(run=run)


def run(args) -> int:
    config = load_config(args.config)
    if args.batch < 1 or args.context < 1:
        raise UsageError(t("llm.positive"))
    tokens = args.batch * args.context
    options = dict(weight_dtype=args.weight_dtype, kv_dtype=args.kv_dtype, utilization=args.utilization,
                   activation_bytes=int(args.reserve_gib * kv_cache.GiB))
    try:
        p = kv_cache.plan(config, args.card, tp=args.tp, **options)
        smallest = kv_cache.smallest_tp(config, args.card, tokens=tokens, **options)
        cards, cards_fig = kv_cache.cards_needed(config, args.card, tp=args.tp, tokens=tokens, **options)
    except kv_cache.ConfigError as err:
        raise UsageError(str(err)) from None
    fits = p.max_tokens >= tokens
    if args.json:
        print(json.dumps({
            "model": p.model, "card": p.card, "tp": p.tp, "attention": kv_cache.attention_kind(config),
            "params": p.params, "weights_bytes_per_card": p.weights_per_card, "kv_budget_bytes_per_card": p.kv_budget_per_card,
            "kv_bytes_per_token_per_card": p.kv_bytes_per_token, "max_tokens": p.max_tokens,
            "max_batch": p.max_batch(args.context), "requested_tokens": tokens, "fits": fits,
            "smallest_tp": smallest.tp if smallest else None, "cards_at_tp": cards,
        }, ensure_ascii=False, indent=2))
    else:
        print(t("llm.heading", model=p.model, attention=kv_cache.attention_kind(config), tp=args.tp, card=p.card))
        for fig in p.figures():
            print(t("llm.figure", label=fig.label, value=fig.formatted(), kind=fig.kind.label, origin=fig.origin))
        print(t("llm.max_batch", context=args.context, batch=p.max_batch(args.context)))
        request = dict(batch=args.batch, context=args.context, tokens=f"{tokens:,}", tp=args.tp)
        print(t("llm.fits", **request) if fits else t("llm.does_not_fit", **request))
        print(t("llm.smallest", smallest=smallest.tp if smallest else t("llm.over_32"), tp=args.tp, cards=cards,
                origin=cards_fig.origin))
    return EXIT_OK if fits else EXIT_FAIL
