"""Writing operators: the Ascend C vector pipeline as a runnable model (``ascendc``)."""
