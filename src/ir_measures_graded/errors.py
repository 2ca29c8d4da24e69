"""The one exception type users see for bad qrels, runs or measure parameters."""


class GradedInputError(ValueError):
    """Bad input: the message names the file, line, query or parameter that is wrong.

    Subclasses :class:`ValueError`, so code that already catches ``ValueError`` around
    ``ir_measures`` calls keeps working.
    """
