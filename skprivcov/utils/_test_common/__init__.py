"""What the common tests need to know of each registered estimator.

The registry (``utils._registry``) says what an estimator *is* (its variants,
its command-line name, its demo budgets); this package says what the tests
expect of it: the scikit-learn checks it is expected to fail, and why
(``instance_generator``), and the fitted attributes it may publish, and why
(``published``). Kept apart so that the runtime registry imports nothing the
tests alone need (docs/developers.rst, "The registry").
"""
