"""The home screen (a clock, the app grid) and the recent-apps list."""

from __future__ import annotations

from functools import partial

from PIL import Image, ImageDraw
from pydantic import BaseModel, ConfigDict

import guilens.device.sim.ui as ui
from guilens.device.sim.core import App, Ctx
from guilens.device.sim.kit import Button, Canvas, Label, View, mix

_WALLPAPERS: dict[tuple[int, int, bool], Image.Image] = {}


class LauncherState(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _wallpaper(size: tuple[int, int], dark: bool) -> Image.Image:
    key = (*size, dark)
    img = _WALLPAPERS.get(key)
    if img is None:
        w, h = size
        top, bottom = ((32, 38, 84), (10, 12, 28)) if dark else ((72, 86, 190), (214, 110, 150))
        strip = Image.new("RGB", (1, h))
        for y in range(h):
            strip.putpixel((0, y), mix(top, bottom, y / max(1, h - 1)))
        img = strip.resize((w, h), Image.Resampling.NEAREST)
        d = ImageDraw.Draw(img)
        for i, (fx, fy, fr) in enumerate(((0.85, 0.18, 0.35), (0.1, 0.55, 0.28), (0.7, 0.82, 0.4))):
            r = int(w * fr)
            cx, cy = int(w * fx), int(h * fy)
            col = mix(mix(top, bottom, fy), (255, 255, 255), 0.08 + 0.03 * i)
            d.ellipse((cx - r, cy - r, cx + r, cy + r), fill=col)
        _WALLPAPERS[key] = img
    return img


class Launcher(App):
    short = "launcher"
    label = "Home"
    accent = (72, 86, 190)
    State = LauncherState

    def screen_main(self, ctx: Ctx) -> list[View]:
        from guilens.device.sim.registry import ALL, APPS

        u = ctx.u
        dark = ctx.theme.dark
        bg = View((0, 0, ctx.w, ctx.h), cls="android.widget.FrameLayout", rid="workspace",
                  paint=lambda c, v: c.paste(("wallpaper", ctx.w, ctx.h, dark), _wallpaper((ctx.w, ctx.h), dark),
                                             (0, 0, ctx.w, ctx.h)))
        white = (255, 255, 255)
        y = ctx.top + u(120)
        bg.add(Label((0, y, ctx.w, y + u(230)), ctx.now.strftime("%H:%M"), u(210), white, align="center",
                     rid="home_clock"))
        bg.add(Label((0, y + u(240), ctx.w, y + u(320)), ctx.now.strftime("%A, %B %-d"), u(48),
                     mix(white, (0, 0, 0), 0.08), align="center", rid="home_date"))
        cols = 4
        cell_w = (ctx.w - u(80)) // cols
        cell_h = u(300)
        gy = max(y + u(440), ctx.bottom - u(120) - cell_h * ((len(APPS) + cols - 1) // cols))
        for i, short in enumerate(APPS):
            app = ALL[short]
            cx = u(40) + (i % cols) * cell_w
            cy = gy + (i // cols) * cell_h
            cell = View((cx, cy, cx + cell_w, cy + cell_h), text="", desc=app.label, rid=f"app_{short}",
                        on_tap=partial(self._launch, ctx, short), cls="android.widget.TextView")
            isz = u(160)
            ir = (cx + (cell_w - isz) // 2, cy + u(20), cx + (cell_w + isz) // 2, cy + u(20) + isz)
            cell.add(View(ir, cls="android.widget.ImageView", paint=partial(_icon, app=app, ctx=ctx)))
            cell.add(Label((cx, ir[3] + u(10), cx + cell_w, ir[3] + u(80)), app.label, u(38), white,
                           align="center", rid="app_label"))
            bg.add(cell)
        return [bg]

    def _launch(self, ctx: Ctx, short: str) -> str:
        from guilens.device.sim.registry import ALL

        ctx.stack[1:] = []
        ctx.open_app(short)
        return f"opened {ALL[short].label}"

    def screen_recents(self, ctx: Ctx) -> list[View]:
        from guilens.device.sim.registry import ALL

        u = ctx.u
        t = ctx.theme
        p = ctx.phone
        views: list[View] = [ui.app_bar(ctx, "Recent apps", back=False)]
        col = ui.Column(u(48), ctx.top + ctx.bar + u(24), ctx.w - u(48))
        items: list[View] = []
        recents = [s for s in p.recents if s in p.stacks]
        for short in recents:
            app = ALL[short]
            screen = p.stacks[short][-1].screen
            r = col.next(u(220), u(28))
            where = "Start screen" if screen == app.root else screen.replace("_", " ").capitalize()
            items.append(ui.row(ctx, r, app.label, where, rid=f"recent_{short}",
                                title_id="recent_title", on_tap=partial(self._resume, ctx, short),
                                lead=partial(_icon_at, app=app, ctx=ctx)))
        if not items:
            items.append(ui.empty(ctx, col.next(u(300)), "No recent apps"))
        views.append(ui.scroll(ctx, (0, ctx.top + ctx.bar, ctx.w, ctx.bottom - u(200)), "recents", items))
        if recents:

            def clear() -> str:
                for s in list(p.stacks):
                    if s != "launcher":
                        del p.stacks[s]
                p.recents.clear()
                ctx.stack[1:] = []
                return "cleared all recent apps"

            r = ((ctx.w - u(360)) // 2, ctx.bottom - u(170), (ctx.w + u(360)) // 2, ctx.bottom - u(50))
            views.append(Button(r, "Clear all", clear, rid="clear_all", fill=t.tint, color=t.text,
                                radius=u(60), size=u(42)))
        return views

    def _resume(self, ctx: Ctx, short: str) -> str:
        from guilens.device.sim.registry import ALL

        ctx.stack[1:] = []
        ctx.open_app(short)
        return f"switched to {ALL[short].label}"


def _icon(c: Canvas, v: View, app: App, ctx: Ctx) -> None:
    _icon_at(c, v.bounds, app, ctx)


def _icon_at(c: Canvas, r: tuple[int, int, int, int], app: App, ctx: Ctx) -> None:
    x1, y1, x2, y2 = r
    c.rect(r, app.accent, radius=(x2 - x1) * 3 // 10, bg=None)
    pad = (x2 - x1) // 5
    app.draw_icon(c, (x1 + pad, y1 + pad, x2 - pad, y2 - pad), (255, 255, 255))
