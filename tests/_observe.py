"""What an observer of a call sees: the exception it raises and its warnings."""

import warnings


def observe(call, ignore=()):
    """Run ``call``; return (the exception raised or None, the warnings' texts),
    leaving out the warnings of the categories ``ignore``."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            call()
        except Exception as error:
            raised = error
        else:
            raised = None
    return raised, tuple(
        str(warning.message)
        for warning in caught
        if not issubclass(warning.category, ignore)
    )
