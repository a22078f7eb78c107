"""The one base class for mistakes a user can make: bad input files, impossible options,
a missing solver binary. The command line prints these as a single line (no traceback) and
exits with a non-zero code; anything else escaping is a bug in the project."""


class UserError(ValueError):
    """A problem with the user's input or environment; the message names what and where."""
