"""Writing operators: the Ascend C vector pipeline as a runnable model (``ascendc``), Triton kernels executed by
the interpreter on any machine (``triton_kernels``), a checker of their launch on Ascend chips (``triton_launch``)
and the decision table of kernel paths (``kernel_paths``)."""
