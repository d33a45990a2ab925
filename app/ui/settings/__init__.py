"""The Settings dialog: its tabs (Model, Agent, Safety, Secrets), the fields each setting gets from the catalog, and
the fit of the dialog to its screen."""
