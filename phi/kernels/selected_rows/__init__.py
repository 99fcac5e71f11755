"""Kernels of SelectedRows arguments (Paddle's phi/kernels/selected_rows/): names as Paddle's
(``scale_sr``, ``adam_dense_param_sparse_grad``, ``merge_selected_rows`` ...), one module per
base name; importing this package imports none of them.
"""
