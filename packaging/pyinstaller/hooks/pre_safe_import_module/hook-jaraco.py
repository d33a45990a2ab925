# The app's `jaraco` is the real one in site-packages (keyring needs jaraco.classes, .context, .functools), never
# setuptools' vendored copy (setuptools is excluded from the app). PyInstaller's own hook for this name makes `jaraco`
# an alias of `setuptools._vendor.jaraco` when setuptools' vendor folder shadows the real package in the build
# environment, and then fails ("Target module "jaraco" already imported as AliasNode"); this hook takes its place and
# leaves the name to the ordinary search.


def pre_safe_import_module(api: object) -> None:
    return None
