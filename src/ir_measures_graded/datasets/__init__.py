"""Test collections registered with ir_datasets (one module per collection).

Importing :mod:`ir_measures_graded` registers them when ir_datasets is installed (extra
``datasets``); ``from ir_measures_graded.datasets import ohsumed`` does so explicitly.
"""
