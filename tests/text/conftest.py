from tests.core.conftest import llm_settings, make_agent  # noqa: F401  (the core's agent fixtures, reused)
