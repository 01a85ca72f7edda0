"""Notes: a searchable list of notes, an editor with title and body, delete with confirmation.

Leaving the editor with back saves a changed note (as Keep and Joplin do), so an
agent that forgets the Save button does not silently lose its work.
"""

from __future__ import annotations

from datetime import datetime
from functools import partial

from pydantic import BaseModel, ConfigDict, model_validator

import guilens.device.sim.ui as ui
from guilens.device.sim.core import App, Ctx
from guilens.device.sim.kit import Label, View
from guilens.device.sim.records import by_id, number_records


class Note(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: int | None = None
    """Assigned in list order when left out."""
    title: str
    body: str = ""
    updated: datetime | None = None


class NotesState(BaseModel):
    model_config = ConfigDict(extra="forbid")

    notes: list[Note] = []
    """In display order, newest first."""

    @model_validator(mode="after")
    def _ids(self) -> NotesState:
        number_records(self.notes)
        return self

    def get(self, note_id: int | None) -> Note | None:
        return by_id(self.notes, note_id)


def _matches(n: Note, q: str) -> bool:
    q = q.strip().casefold()
    return not q or q in n.title.casefold() or q in n.body.casefold()


class Notes(App):
    short = "notes"
    label = "Notes"
    accent = (230, 162, 0)
    icon = "note"
    State = NotesState

    # --- list ----------------------------------------------------------------------------------
    def screen_main(self, ctx: Ctx) -> list[View]:
        u = ctx.u
        st: NotesState = ctx.state
        views: list[View] = [ui.app_bar(ctx, "Notes", back=False)]
        top = ctx.top + ctx.bar
        sf = ui.field(ctx, (u(40), top + u(16), ctx.w - u(40), top + u(146)), "search", "Search notes")
        views.append(sf)
        cb = ui.clear_button(ctx, sf, "Search notes")
        if cb:
            views.append(cb)
        q = ctx.field("search")
        shown = [n for n in st.notes if _matches(n, q)]
        col = ui.Column(u(40), top + u(180), ctx.w - u(40))
        items: list[View] = []
        for n in shown:
            preview = n.body.strip().replace("\n", " · ")
            h = u(250) if preview else u(170)
            r = col.next(h, u(28))
            items.append(ui.row(ctx, r, n.title or "(untitled)", preview, rid="note", title_id="note_title",
                                sub_id="note_body", sub_lines=2 if preview else 1,
                                on_tap=partial(self._open, ctx, n),
                                on_long=partial(self._menu, ctx, n)))
        if not shown:
            msg = "No notes match your search" if q.strip() else "No notes yet. Tap New note to write one."
            items.append(ui.empty(ctx, col.next(u(300)), msg))
        col.skip(u(240))
        items.append(View((0, col.y - u(10), 1, col.y), cls="android.view.View"))  # room above the FAB
        views.append(ui.scroll(ctx, (0, top + u(170), ctx.w, ctx.bottom), "notes_list", items))
        views.append(ui.fab(ctx, "New note", "new_note", lambda: self._new(ctx)))
        return views

    def _open(self, ctx: Ctx, n: Note) -> str:
        ctx.push("edit", {"id": n.id}, {"title": n.title, "body": n.body})
        return f"opened note {n.title!r}"

    def _new(self, ctx: Ctx) -> str:
        ctx.push("edit", {"id": None}, {"title": "", "body": ""}, focus="title")
        return "started a new note"

    def _menu(self, ctx: Ctx, n: Note) -> str:
        ctx.dialog("note_menu", id=n.id)
        return f"opened the menu of note {n.title!r}"

    def dialog_note_menu(self, ctx: Ctx, spec: dict) -> View | None:
        n = ctx.state.get(spec["id"])
        if n is None:
            return None

        def open_() -> str:
            ctx.close_dialog()
            return self._open(ctx, n)

        def copy() -> str:
            ctx.phone.clipboard = n.body
            ctx.close_dialog()
            return "copied the note's text"

        def delete() -> str:
            ctx.dialog("confirm_delete", id=n.id)
            return "asked to confirm the delete"

        return ui.menu(ctx, n.title or "(untitled)", [("Open", "open", open_), ("Copy text", "copy", copy),
                                                      ("Delete", "delete_note", delete)])

    def dialog_confirm_delete(self, ctx: Ctx, spec: dict) -> View | None:
        st: NotesState = ctx.state
        n = st.get(spec["id"])
        if n is None:
            return None

        def cancel() -> str:
            ctx.close_dialog()
            return "kept the note"

        def delete() -> str:
            st.notes.remove(n)
            ctx.close_dialog()
            if ctx.route.screen == "edit":
                ctx.pop()
            ctx.toast("Note deleted")
            return f"deleted note {n.title!r}"

        return ui.dialog(ctx, "Delete this note?", f"“{n.title or 'Untitled'}” will be deleted.",
                         [("Cancel", "button2", cancel), ("Delete", "button1", delete)], dismiss=cancel)

    # --- editor --------------------------------------------------------------------------------
    def screen_edit(self, ctx: Ctx) -> list[View]:
        u = ctx.u
        t = ctx.theme
        note_id = ctx.route.params.get("id")
        delete = None if note_id is None else ctx.opener("confirm_delete", "asked to confirm the delete", id=note_id)
        views: list[View] = [ui.editor_bar(ctx, "Edit note" if note_id is not None else "New note",
                                           lambda: self._save(ctx), delete)]
        top = ctx.top + ctx.bar + u(24)
        tf = ui.field(ctx, (u(40), top, ctx.w - u(40), top + u(160)), "title", "Title", size=u(56),
                      submit=lambda: self._focus(ctx, "body"))
        views.append(tf)
        bf = ui.field(ctx, (u(40), top + u(190), ctx.w - u(40), ctx.bottom - u(140)), "body", "Note",
                      multiline=True)
        views.append(bf)
        for f, hint in ((tf, "Title"), (bf, "Note")):
            cb = ui.clear_button(ctx, f, hint)
            if cb:
                views.append(cb)
        n = ctx.state.get(note_id)
        when = f"Edited {n.updated:%b %-d, %H:%M}" if n is not None and n.updated else ""
        words = len(ctx.field("body").split())
        views.append(Label((u(48), ctx.bottom - u(120), ctx.w - u(48), ctx.bottom - u(30)),
                           f"{words} words" + (f" · {when}" if when else ""), u(36), t.sub, rid="note_info"))
        return views

    def _focus(self, ctx: Ctx, key: str) -> str:
        ctx.route.focus = key
        return "moved to the note's body"

    def _store(self, ctx: Ctx) -> str | None:
        """Write the editor's drafts into the state; None when there was nothing to save."""
        st: NotesState = ctx.state
        route = ctx.route
        title, body = route.fields.get("title", ""), route.fields.get("body", "")
        note_id = route.params.get("id")
        n = st.get(note_id)
        if n is None:
            if not title.strip() and not body.strip():
                return None
            new_id = max((x.id or 0 for x in st.notes), default=0) + 1
            st.notes.insert(0, Note(id=new_id, title=title, body=body, updated=ctx.now))
            route.params["id"] = new_id
            return f"saved note {title!r}"
        if n.title == title and n.body == body:
            return None
        n.title, n.body, n.updated = title, body, ctx.now
        return f"saved note {title!r}"

    def _save(self, ctx: Ctx) -> str:
        done = self._store(ctx)
        ctx.pop()
        if done is None:
            ctx.toast("Nothing to save")
            return "nothing to save; closed the editor"
        ctx.toast("Note saved")
        return done

    def leave(self, ctx: Ctx) -> str | None:
        if ctx.route.screen != "edit":
            return None
        done = self._store(ctx)
        if done:
            ctx.toast("Note saved")
        return done
