"""The few exceptions warpsmith raises.

    WarpsmithError            anything the user must fix before a command can run
    ├── TaskError             a task file or suite that cannot be loaded (names the file)
    └── UsageError            a bad argument: unknown name, missing file, bad option

A candidate kernel that fails is never an exception: it is a Verdict.
"""


class WarpsmithError(Exception):
    pass


class TaskError(WarpsmithError):
    def __init__(self, path, message):
        super().__init__(f"{path}: {message}")
        self.path = str(path)
        self.message = message


class UsageError(WarpsmithError):
    pass
