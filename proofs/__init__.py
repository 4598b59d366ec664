"""Machine-checked statements behind syncattn (see proofs/README.md).

Each ``proof_<name>.py`` module proves one statement with sympy, compares the
lambdified statement with the syncattn functions it mirrors in float64, and runs
a mutation check showing that the same proof rejects a deliberately wrong
variant. pytest collects them; ``syncattn verify`` imports and runs them.
"""
