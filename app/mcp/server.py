"""The MCP tools: tasks, routines and History, each with a plain description and a tight input schema.

No tool takes a model, a key, an allowed site, a secret, an upload folder or an answer to a risky moment: those are
the person's (Settings, the environment, the command line) and stay on this side.
"""

import asyncio
import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any, TypeVar, cast

from pydantic import ConfigDict, Field

from app import __version__
from app.core.safety.secrets import mask_everywhere
from app.mcp.views import RoutineView, RunList, RunListItem, TaskView
from app.routine.plan import MAX_PARALLEL
from app.text.row_words import counts_words

if TYPE_CHECKING:
    from mcp.server.mcpserver import Context, MCPServer

    from app.history.records import RunRecord
    from app.history.store import RunStore
    from app.mcp.routines import RoutineRegistry
    from app.mcp.tasks import McpTask, TaskRegistry

F = TypeVar("F", bound=Callable[..., Any])
# Clients cut long calls off (Claude Desktop on Windows after about 4 minutes): no call waits longer than this.
MAX_WAIT = 180.0
DEFAULT_WAIT = 30.0
TASK_LIMIT = 4000  # characters; a task is a few sentences, not a document
MAX_RUNS = 100

INSTRUCTIONS = (
    "Page Agent Desktop does web tasks in a real browser, step by step, as a person would. Give it a whole task in "
    "plain words (run_task) and read its outcome; a long task gives a task_id to poll with get_task. When the "
    "Page Agent Desktop panel is open the task runs there, in sight of the person, who can stop it or take over. "
    "A task that needs a person (a captcha, a sign-in, a code) reports status needs_person with what to do; the "
    "person does it in Page Agent Desktop, never through you. Allowed sites, secrets and upload folders are the "
    "person's settings and cannot be changed here."
)

Task = Annotated[
    str,
    Field(
        min_length=1,
        max_length=TASK_LIMIT,
        description="What to do, in plain words, as you would tell a person: 'Fill the new-customer form on "
        "crm.example.com with: Ada Lovelace, ada@example.com'.",
    ),
]
StartUrl = Annotated[
    str,
    Field(
        max_length=2000,
        description="A page to open first (http or https, within the sites the person allows). Empty: carry on "
        "from the page the browser shows.",
    ),
]
WaitS = Annotated[
    float,
    Field(
        ge=0,
        le=MAX_WAIT,
        description=f"Seconds to wait for the end before returning what is known so far (0 to {MAX_WAIT:g}); "
        "while it runs, ask again with its id.",
    ),
]
TaskId = Annotated[str, Field(min_length=1, max_length=64, description="The task_id run_task returned.")]


def build_server(tasks: "TaskRegistry", routines: "RoutineRegistry", runs: "RunStore") -> "MCPServer[Any]":
    # Not postponed (no __future__ annotations here): the SDK reads each tool's signature for its schema.
    from mcp.server.mcpserver import Context, MCPServer
    from mcp.server.mcpserver.tools import Tool
    from mcp.types import ToolAnnotations

    from app.history.records import RunRecord

    tools_list: list[Tool] = []

    def tool(description: str, *, read_only: bool = False) -> Callable[[F], F]:
        def register(fn: F) -> F:
            # The hint lets a client ask the person before a call that acts, and not before one that only reads.
            hints = ToolAnnotations(read_only_hint=read_only, open_world_hint=not read_only)
            made = Tool.from_function(_in_plain_words(fn), description=description, annotations=hints)
            # An argument the schema does not name is refused, not ignored: nothing slips past it.
            given = made.fn_metadata.arg_model
            config = ConfigDict(**given.model_config)
            config["extra"] = "forbid"
            made.fn_metadata.arg_model = type(given.__name__, (given,), {"model_config": config})
            made.parameters["additionalProperties"] = False
            tools_list.append(made)
            return fn

        return register

    @tool(
        "Start a web task and wait up to wait_s seconds for it. Returns its status and, once ended, "
        "its outcome (success, the agent's final words, steps). Still running: poll get_task with its task_id. "
        "Progress is notified at every step."
    )
    async def run_task(task: Task, ctx: Context, start_url: StartUrl = "", wait_s: WaitS = DEFAULT_WAIT) -> TaskView:
        started = await tasks.start(task, start_url, _client_name(ctx))
        return await _follow(started, wait_s, ctx)

    @tool(
        "A task's status (queued, running, needs_person, completed, error, stopped), its current step in "
        "plain words, and its outcome once ended. needs_person: the reason says what the person must do in Page "
        "Agent Desktop. With wait_s, waits that long for the task to end (with progress at every step).",
        read_only=True,
    )
    async def get_task(task_id: TaskId, ctx: Context, wait_s: WaitS = 0) -> TaskView:
        return await _follow(tasks.get(task_id), wait_s, ctx)

    @tool("Stop a task, as the person's Stop button would. Returns it, with status stopped.")
    async def cancel_task(task_id: TaskId) -> TaskView:
        return (await tasks.cancel(task_id)).view

    @tool(
        "Run one task template over every row of a CSV or Excel file on this computer: {column} in the "
        "template stands for that row's cell. Returns a routine_id at once; get_routine gives the counts per "
        "status and, with wait_s, waits for the end. Results are written to a CSV beside the rows (or to "
        "results_path)."
    )
    async def run_routine(
        template: Annotated[
            str,
            Field(
                min_length=1,
                max_length=TASK_LIMIT,
                description="The task for each row, with {column} placeholders: 'Add {name} ({email}) as a contact'.",
            ),
        ],
        rows_path: Annotated[
            str, Field(min_length=1, max_length=4096, description="The rows: a .csv, .tsv, .xlsx or .xlsm file.")
        ],
        results_path: Annotated[
            str, Field(max_length=4096, description="Where to write the results CSV (default: beside the rows).")
        ] = "",
        parallel: Annotated[
            int, Field(ge=1, le=MAX_PARALLEL, description="Rows run at the same time, each in its window.")
        ] = 1,
        start_url: StartUrl = "",
    ) -> RoutineView:
        return await routines.start(template, rows_path, results_path, parallel, start_url)

    @tool(
        "A routine's status and its rows counted per status (done, failed, needs_person…). With wait_s, waits "
        "that long for the routine to end (with progress at every row).",
        read_only=True,
    )
    async def get_routine(
        routine_id: Annotated[str, Field(min_length=1, max_length=64, description="What run_routine returned.")],
        ctx: Context,
        wait_s: WaitS = 0,
    ) -> RoutineView:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + wait_s
        view = routines.get(routine_id)
        told = -1
        while not view.ended and (left := deadline - loop.time()) > 0:
            view = await routines.changed(routine_id, left)
            finished = sum(view.counts.values())
            if finished != told:  # once per row that ended, not at every change of status
                told = finished
                said = " · ".join(filter(None, (f"{finished} of {view.rows} rows", counts_words(view.counts))))
                await ctx.report_progress(finished, view.rows, said)
        return view

    @tool("The latest runs in History, newest first (secrets masked).", read_only=True)
    async def list_runs(
        limit: Annotated[int, Field(ge=1, le=MAX_RUNS, description="How many runs to list.")] = 20,
    ) -> RunList:
        summaries = await asyncio.to_thread(runs.summaries)
        return RunList(
            runs=[
                RunListItem(
                    run_id=s.id,
                    started_at=s.started_at.isoformat(),
                    title=mask_everywhere(s.title),
                    status=s.status,
                    success=s.success,
                    steps=s.steps,
                )
                for s in summaries[:limit]
            ]
        )

    @tool("One run from History: its tasks, every step and outcome (secrets masked).", read_only=True)
    async def get_run(
        run_id: Annotated[str, Field(min_length=1, max_length=128, description="A run_id from list_runs.")],
    ) -> RunRecord:
        return await asyncio.to_thread(_masked_run, runs, run_id)

    return MCPServer(
        name="page-agent-desktop",
        version=__version__,
        instructions=INSTRUCTIONS,
        log_level="WARNING",
        tools=tools_list,
    )


async def _follow(task: "McpTask", wait_s: float, ctx: "Context[Any, Any]") -> TaskView:
    """Wait until ``task`` ends or ``wait_s`` has passed, notifying progress at every step."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + wait_s
    sent = 0
    told = (-1, "", "")
    while not task.view.ended and (left := deadline - loop.time()) > 0:
        await task.changed(left)
        view = task.view
        now = (view.steps, view.status, view.now)
        if now != told and not view.ended:
            told = now
            sent += 1
            await ctx.report_progress(sent, None, _progress_words(view))
    return task.view


def _in_plain_words(fn: F) -> F:
    """What a tool refuses (an unknown id, a file or page it may not use, rows it cannot read) reaches the client as
    the message itself, not as the SDK's "Error executing tool"."""
    from mcp.server.mcpserver.exceptions import ToolError

    from app.history.store import RunStoreError

    @functools.wraps(fn)
    async def plain(*args: Any, **kwargs: Any) -> Any:
        try:
            return await fn(*args, **kwargs)
        except (LookupError, ValueError, RunStoreError) as exc:
            raise ToolError(mask_everywhere(str(exc))) from exc

    return cast(F, plain)


def _progress_words(view: TaskView) -> str:
    if view.status == "needs_person":
        return view.reason
    return f"Step {view.steps}: {view.now}" if view.steps else view.now


def _client_name(ctx: "Context[Any, Any]") -> str:
    params = getattr(ctx.session, "client_params", None)
    info = getattr(params, "client_info", None)
    return str(getattr(info, "name", "") or "")


def _masked_run(runs: "RunStore", run_id: str) -> "RunRecord":
    from app.history.records import RunRecord

    record = runs.load(run_id)
    return RunRecord.model_validate_json(mask_everywhere(record.model_dump_json()))
