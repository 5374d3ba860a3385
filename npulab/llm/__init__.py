"""Large language models on Ascend: KV-cache sizes from Hugging Face configs and a deployment planner
(``kv_cache``, ``plan_cli``), and the capstone lesson's small decoder with LoRA (``decoder``)."""
