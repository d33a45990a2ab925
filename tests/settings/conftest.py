from tests.fakes.memory_keyring import memory_keyring  # noqa: F401  (fixture)
