"""phi.core: tensors, kernel keys, kernels, the kernel factory and device contexts."""
