"""The demo's recorded task: the words the panel shows, read-only, in demo mode (a module of its own, so the panel
can show them without importing what records the demo)."""

DEMO_TASK = (
    "Sign in to Acme CRM with demo@acme.test / <secret>demo_password</secret> and add a new customer: "
    "Jane Doe, jane@example.com, "
    "company Example Ltd, plan Pro, start date 2026-12-01, send a welcome email, and add the note "
    "“Met at the expo”. Then export the customer list as CSV."
)
