"""The known model services a user can pick under Settings → Provider: each fills in its endpoint's address and a
model. Plain data, without pydantic: the settings catalog (app/settings/catalog.py) lists them as the provider's
choices."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TokenPrice:
    """What a model costs per million tokens: those of the prompt, those of the answer, and the currency's sign ("$";
    "" for a price the person gave, in the money they pay in)."""

    prompt: float
    completion: float
    currency: str = ""

    def of(self, prompt_tokens: int, completion_tokens: int) -> float:
        return (prompt_tokens * self.prompt + completion_tokens * self.completion) / 1_000_000


@dataclass(frozen=True)
class ProviderPreset:
    key: str  # the "provider" setting's value
    label: str  # English, translated where shown (resources/i18n/zh/settings.json)
    base_url: str
    model: str
    needs_key: bool = True
    price: TokenPrice | None = None  # the list price of ``model`` there (another model's is not known)


# OpenAI's list price of gpt-4.1-mini, which OpenRouter passes on.
_GPT_41_MINI = TokenPrice(0.40, 1.60, "$")


PRESETS: tuple[ProviderPreset, ...] = (
    ProviderPreset(
        key="openai", label="OpenAI", base_url="https://api.openai.com/v1", model="gpt-4.1-mini", price=_GPT_41_MINI
    ),
    ProviderPreset(
        key="openrouter",
        label="OpenRouter",
        base_url="https://openrouter.ai/api/v1",
        model="openai/gpt-4.1-mini",
        price=_GPT_41_MINI,
    ),
    ProviderPreset(key="deepseek", label="DeepSeek", base_url="https://api.deepseek.com/v1", model="deepseek-chat"),
    ProviderPreset(
        key="qwen",
        label="Qwen / DashScope",
        base_url="https://dashscope.aliyuncs.com/compatible-mode/v1",
        model="qwen-plus",
    ),
    ProviderPreset(
        key="ollama",
        label="Ollama (localhost)",
        base_url="http://localhost:11434/v1",
        model="qwen2.5:7b",
        needs_key=False,
    ),
    ProviderPreset(
        key="lmstudio",
        label="LM Studio (localhost)",
        base_url="http://localhost:1234/v1",
        model="local-model",
        needs_key=False,
    ),
    ProviderPreset(key="custom", label="Custom", base_url="", model=""),
)
CUSTOM = PRESETS[-1]  # any other address and model


def preset(key: str) -> ProviderPreset:
    """The preset ``key`` names; Custom for one that is not known."""
    return next((p for p in PRESETS if p.key == key), CUSTOM)
