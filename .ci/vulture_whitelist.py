# Names that look unused to vulture but are called by a framework, not by our code. Read by `vulture app tests
# .ci/vulture_whitelist.py` (packaging/setup.sh --test). A name belongs here only with the caller that uses it.
# ruff: noqa
from app.core.types import ActionRecord, ErrorEvent  # pydantic validators: pydantic calls them
from app.history.records import RunRecord

ActionRecord._read_older_runs
ErrorEvent._read_older_runs
RunRecord._no_secrets

# Qt calls these overrides (event filters, widget events, QIconEngine.clone).
_.eventFilter
_.hideEvent
_.contextMenuEvent
_.clone
_.dragEnterEvent  # app/ui/routine/setup_view.py: a file dragged over the Routine setup
# QLayout and QAbstractTableModel overrides (app/ui/routine/chips.py FlowLayout, rows_table.py RowsModel).
_.itemAt
_.takeAt
_.expandingDirections
_.columnCount
_.headerData

# Held so that Qt does not collect it: BrowserTiler filters the panel's events as long as the desktop lives.
_._tiler

# pydantic reads a model's configuration from this class attribute.
_.model_config

# The MCP SDK calls the tools that app/mcp/server.py registers with its @tool decorator.
_.get_task
_.cancel_task
_.get_routine
_.list_runs
_.get_run

# uvicorn's Server calls capture_signals() around serving and reads should_exit in its loop (app/mcp/http.py).
_.capture_signals
_.should_exit
