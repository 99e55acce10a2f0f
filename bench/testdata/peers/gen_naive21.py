"""Fake gen_naive21.py (tests): prints a placeholder naive21.cu; bench/testdata/fake_nvcc.py
turns it into a program that prints a naive21-like table."""
print("// naive21.cu (fake)")
