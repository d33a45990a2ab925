# As hook-jaraco.py: the real jaraco.functools from site-packages, never an alias of setuptools' vendored copy.


def pre_safe_import_module(api: object) -> None:
    return None
