"""The trust boundary between the user's data and untrusted pages: navigation, secrets, uploads, risky moments.

Pure policy (no Qt, Playwright or openai): app/browser enforces it in Chromium, the tools consult it, the agent masks
with it. ``Guardrails`` bundles one run's policies.
"""
