"""Todo: task lists with due dates, priorities, tags, a done flag and notes."""

from __future__ import annotations

from typing import Any, Literal

from coworkenv.apps._common import clamp, dump, dump_many, parse_when
from coworkenv.tools import ToolError, Toolkit, read, service_args, write
from coworkenv.world import AppDef, AppState, Derived, Kept, Key, Order, Record, Words, format_time, parse_time

Priority = Literal["high", "medium", "low"]
# Where a task stands: not started, started and not yet done, or done.
Stage = Literal["not_started", "in_progress", "done"]


class TodoList(Record):
    name: str
    owner: str = ""


class TodoTask(Record):
    list_id: str
    title: str
    notes: str = ""
    due: str | None = None  # ISO-8601 UTC
    priority: Priority = "medium"
    tags: list[str] = []
    done: bool = False
    done_at: str | None = None
    created_at: str = ""
    started: bool = False  # work on it has begun: in progress until done
    # A status none of the stages is, kept as written (as a to-do service storing any status text keeps it): the
    # task is then listed by that word alone, by no stage, until a stage is set again.
    status_word: str | None = None
    # The id shown and looked up, where a service numbering new tasks by their count hands a held one out again
    # (`add_task`'s id_prefix): calls reach the first task holding it; None: the record's id.
    shown_id: str | None = None

    shown_when_set = ("status_word", "shown_id")  # in results only when set (an imported service's tasks)


def _stage(task: TodoTask) -> Stage | None:
    if task.status_word is not None:
        return None
    return "done" if task.done else "in_progress" if task.started else "not_started"


class TodoState(AppState):
    lists: list[TodoList] = []
    tasks: list[TodoTask] = []
    kept: list[Kept] = []  # fields a to-do service keeps as written (an imported task's tools only)


def _due_epoch(task: TodoTask) -> int | None:
    """The due time in epoch seconds, parsed once at write (None: undated or unreadable)."""
    try:
        return parse_time(task.due) if task.due else None
    except ValueError:
        return None


def _due(value: str) -> str:
    """A due time argument in UTC; a date alone (YYYY-MM-DD) is that day's 00:00 UTC."""
    if len(value) == 10 and value[4] == "-" and value[7] == "-":
        value = f"{value}T00:00:00Z"
    return format_time(parse_when(value))


def _tags(tags: list[str]) -> list[str]:
    """Tags stripped, empty ones and repeats dropped, in their order."""
    return list(dict.fromkeys(t.strip() for t in tags if t.strip()))


class TodoTools(Toolkit):
    app = "todo"

    @read
    def list_lists(self) -> list[dict[str, Any]]:
        """List the task lists with how many open tasks each has."""
        open_tasks = self.world.table("todo", "tasks").key("open_in")
        lists = self.world.table("todo", "lists").select("id")
        return [{**dump(t), "open_tasks": len(open_tasks.ids(t.id))} for t in lists]

    @read
    @service_args("status_word", "stored_order")
    def list_tasks(
        self, list_id: str | None = None, include_done: bool = False, due_before: str | None = None, limit: int = 50,
        done: bool | None = None, priority: Priority | None = None, tag: str | None = None,
        stage: Stage | None = None, status_word: str | None = None, stored_order: bool = False,
    ) -> list[dict[str, Any]]:
        """List tasks, soonest due first (undated last).

        Args:
            list_id: Only tasks of this list.
            include_done: Also list tasks already done.
            due_before: Only tasks due before this ISO-8601 time.
            limit: Maximum number of tasks.
            done: Only tasks done (true) or only tasks not done (false); overrides include_done.
            priority: Only tasks of this priority.
            tag: Only tasks with this tag.
            stage: Only tasks not started, in progress (started, not done) or done; overrides include_done.
            status_word: Only tasks whose status is this word, set by todo_update_task's status_word (the text
                compared as written); overrides include_done.
            stored_order: In the order the tasks are held (added), not soonest due first.
        """
        if list_id is not None:
            self._list(list_id)
        cutoff = parse_when(due_before) if due_before else None
        table = self.world.table("todo", "tasks")
        due = table.derived("due")
        sets: list[set[str] | frozenset[str] | None]
        every = include_done or stage is not None or status_word is not None
        if done is not None:
            sets = [table.key("done").ids(done), table.key("list").ids(list_id) if list_id is not None else None]
        elif list_id is not None:  # one set: open tasks of a list are the ones not done
            sets = [(table.key("list") if every else table.key("open_in")).ids(list_id)]
        else:
            sets = [None if every else table.key("done").ids(False)]
        if stage is not None:
            sets.append(table.key("stage").ids(stage))
        if status_word is not None:
            sets.append(table.key("status_word").ids(status_word))
        if priority is not None:
            sets.append(table.key("priority").ids(priority))
        if tag is not None:
            sets.append(table.key("tag").ids(tag))
        where = (lambda t: due[t.id] is not None and due[t.id] < cutoff) if cutoff is not None else None
        return dump_many(table.select(None if stored_order else "due_order", sets=sets, where=where,
                                      limit=clamp(limit)))

    @read
    def get_task(self, task_id: str) -> dict[str, Any]:
        """Read one task.

        Args:
            task_id: Task id.
        """
        return dump(self._task(task_id))

    @read
    def search_tasks(self, query: str, include_done: bool = True, limit: int = 20) -> list[dict[str, Any]]:
        """Find tasks by words in title or notes.

        Args:
            query: Words that must all occur (in title, notes or tags).
            include_done: Also return tasks already done.
            limit: Maximum number of tasks.
        """
        table = self.world.table("todo", "tasks")
        sets = [table.key("done").ids(False) if not include_done else None]
        return dump_many(table.select("due_order", words=("text", query), sets=sets, limit=clamp(limit)))

    @write
    def create_list(self, name: str) -> dict[str, Any]:
        """Create a task list.

        Args:
            name: List name.
        """
        if not name.strip():
            raise ToolError("a list needs a name")
        if self.world.table("todo", "lists").key("name").ids(name.strip().lower()):
            raise ToolError(f"a list named {name!r} exists already; use todo_list_lists for its id")
        todo_list = TodoList(id=self.world.new_id("list", "todo", "lists"), name=name.strip(), owner=self.world.user or "")
        self.put("lists", todo_list)
        return dump(todo_list)

    @write
    @service_args("id_prefix", "title_as_written")
    def add_task(
        self, list_id: str, title: str, due: str | None = None, notes: str = "", priority: Priority = "medium",
        tags: list[str] | None = None, id_prefix: str | None = None, title_as_written: bool = False,
    ) -> dict[str, Any]:
        """Add a task to a list.

        Args:
            list_id: List id from todo_list_lists.
            title: What is to be done.
            due: Due time, ISO-8601 with offset (e.g. 2026-03-06T17:00:00+01:00), stored in UTC, or a date
                (2026-03-06: its 00:00 UTC).
            notes: Details.
            priority: high, medium or low.
            tags: Tags of the task.
            id_prefix: Number the new task as another to-do service does: the prefix, then the count of tasks
                held plus one in three digits (todo_013 after twelve), the next number free.
            title_as_written: Keep the title exactly as given, empty or blank too, as a to-do service that stores
                any text does (else it is stripped, and a blank one refused).
        """
        self._list(list_id)
        if not title_as_written and not title.strip():
            raise ToolError("a task needs a title")
        table = self.world.table("todo", "tasks")
        number = len(table) + 1
        while id_prefix is not None and f"{id_prefix}{number:03d}" in table:
            number += 1
        task = TodoTask(
            id=f"{id_prefix}{number:03d}" if id_prefix is not None else self.world.new_id("task", "todo", "tasks"),
            # shown as counted even where a task holds that id (see TodoTask.shown_id); its id is the next free
            shown_id=f"{id_prefix}{len(table) + 1:03d}" if id_prefix is not None else None,
            list_id=list_id, title=title if title_as_written else title.strip(), notes=notes,
            due=_due(due) if due else None, priority=priority, tags=_tags(tags or []),
            created_at=self.world.now_iso,
        )
        self.put("tasks", task)
        return dump(task)

    @write
    @service_args("status_word")
    def update_task(
        self, task_id: str, title: str | None = None, due: str | None = None, notes: str | None = None,
        list_id: str | None = None, priority: Priority | None = None, tags: list[str] | None = None,
        done: bool | None = None, stage: Stage | None = None, status_word: str | None = None,
    ) -> dict[str, Any]:
        """Change a task's title, due time, notes, list, priority, tags, done flag or stage.

        Args:
            task_id: Task id.
            title: New title.
            due: New due time, ISO-8601 with offset, or a date (its 00:00 UTC).
            notes: New notes (replace the old ones).
            list_id: Move the task to this list.
            priority: New priority: high, medium or low.
            tags: New tags (replace the old ones).
            done: True for done, False to reopen.
            stage: not_started, in_progress or done (overrides done).
            status_word: A status none of the stages is, kept as written, as a to-do service storing any status
                text does (`blocked`, `waiting`): the task is then listed by that word alone (todo_list_tasks'
                status_word), by no stage, until a stage or done flag is set again.
        """
        task = self._task(task_id)
        if status_word is not None and (stage is not None or done is not None):
            raise ToolError("give a stage (or done) or a status_word, not both")
        update: dict[str, Any] = {}
        if status_word is not None:
            update["status_word"] = status_word
        elif task.status_word is not None and (stage is not None or done is not None):
            update["status_word"] = None  # a stage set again replaces the word
        if stage is not None:
            done = stage == "done"
            update["started"] = stage != "not_started"
        if title is not None:
            update["title"] = title
        if due is not None:
            update["due"] = _due(due)
        if notes is not None:
            update["notes"] = notes
        if list_id is not None:
            update["list_id"] = self._list(list_id).id
        if priority is not None:
            update["priority"] = priority
        if tags is not None:
            update["tags"] = _tags(tags)
        if done is not None and done != task.done:
            update.update(done=done, done_at=self.world.now_iso if done else None)
        updated = task.model_copy(update=update)
        self.put("tasks", updated)
        return dump(updated)

    @write
    def complete_task(self, task_id: str, done: bool = True) -> dict[str, Any]:
        """Mark a task done (or not done again).

        Args:
            task_id: Task id.
            done: True for done, False to reopen.
        """
        task = self._task(task_id)
        updated = task.model_copy(update={"done": done, "done_at": self.world.now_iso if done else None,
                                          "status_word": None})
        self.put("tasks", updated)
        return {"id": task_id, "done": done, "done_at": updated.done_at}

    @write
    def delete_task(self, task_id: str) -> dict[str, Any]:
        """Delete a task for good (to keep it, mark it done instead).

        Args:
            task_id: Task id.
        """
        task = self._task(task_id)
        self.world.table("todo", "tasks").delete(task.id)
        return {"id": task_id, "deleted": True, "task": dump(task)}

    def _task(self, task_id: str) -> TodoTask:
        return self.require_shown("tasks", task_id, "task", "use todo_list_tasks or todo_search_tasks")  # type: ignore[no-any-return]

    def _list(self, list_id: str) -> TodoList:
        return self.require("lists", list_id, "list", "use todo_list_lists")  # type: ignore[no-any-return]


APP = AppDef("todo", TodoState, TodoTools, "to-do lists: tasks with due dates, priorities, tags, done flags and notes", indexes={
    "lists": {"id": Order(lambda t: t.id), "name": Key(lambda t: t.name.lower())},
    "tasks": {
        "text": Words(lambda t: (t.title, t.notes, " ".join(t.tags))),
        "list": Key(lambda t: t.list_id),
        "open_in": Key(lambda t: None if t.done else t.list_id),
        "done": Key(lambda t: t.done),
        "priority": Key(lambda t: t.priority),
        "stage": Key(_stage),
        "status_word": Key(lambda t: t.status_word),
        "shown": Key(lambda t: t.shown_id),
        "tag": Key(lambda t: t.tags, multi=True),
        "due": Derived(_due_epoch),
        # Tasks without a due date sort after every dated one ("~" is after any ISO time).
        "due_order": Order(lambda t: t.due or "~"),
    },
})
