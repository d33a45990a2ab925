"""The frozen app's entry point: the same ``main`` as the ``page-agent-desktop`` command of a pip install."""

from app.main import main

raise SystemExit(main())
