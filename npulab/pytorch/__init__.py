"""PyTorch on the learner's device: the shared ResNet-50, honest training-step timing, distributed set-up."""
