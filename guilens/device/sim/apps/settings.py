"""Settings: Wi-Fi, Bluetooth, airplane mode, dark theme, brightness and language.

Airplane mode turns the radios off, as on a phone; dark theme recolours every
app, and web search and messaging fail while the phone is offline.
"""

from __future__ import annotations

from functools import partial

from pydantic import BaseModel, ConfigDict, Field

import guilens.device.sim.icons as icons
import guilens.device.sim.ui as ui
from guilens.device.sim.core import App, Ctx
from guilens.device.sim.kit import Label, SeekBar, View

LANGUAGES = ["English", "Deutsch", "Español", "Français", "Italiano", "Nederlands", "Português", "Svenska"]


class SettingsState(BaseModel):
    model_config = ConfigDict(extra="forbid")

    wifi: bool = True
    bluetooth: bool = False
    airplane: bool = False
    dark_mode: bool = False
    brightness: int = Field(default=60, ge=0, le=100)
    language: str = "English"


def online(phone_apps: dict) -> bool:
    s = phone_apps.get("settings")
    return s is None or not (s.airplane and not s.wifi)


class Settings(App):
    short = "settings"
    label = "Settings"
    accent = (66, 97, 156)
    icon = "gear"
    State = SettingsState

    def screen_main(self, ctx: Ctx) -> list[View]:
        u = ctx.u
        st: SettingsState = ctx.state
        t = ctx.theme
        views: list[View] = [ui.app_bar(ctx, "Settings", back=False)]
        col = ui.Column(u(40), ctx.top + ctx.bar + u(10), ctx.w - u(40))
        items: list[View] = [ui.section(ctx, col, "Network & connections")]

        def toggle(name: str, label: str) -> str:
            value = not getattr(st, name)
            setattr(st, name, value)
            if name == "airplane" and value:
                st.wifi = st.bluetooth = False
            return f"turned {label} {'on' if value else 'off'}"

        rows = [
            ("wifi", "Wi-Fi", "Connected to GuilensNet" if st.wifi else "Off", icons.wifi),
            ("bluetooth", "Bluetooth", "On, no devices" if st.bluetooth else "Off", icons.bluetooth),
            ("airplane", "Airplane mode", "All radios off" if st.airplane else "Off", icons.plane),
        ]
        for name, label, sub, icon in rows:
            items.append(ui.switch_row(ctx, col.next(u(200), u(20)), label, sub, name, getattr(st, name),
                                       partial(toggle, name, label), icon))
        items.append(ui.section(ctx, col, "Display"))
        items.append(ui.switch_row(ctx, col.next(u(200), u(20)), "Dark theme", "On" if st.dark_mode else "Off",
                                   "dark_mode", st.dark_mode, lambda: toggle("dark_mode", "dark theme"), icons.moon))
        br = col.next(u(260), u(20))
        card = View(br, fill=t.card, radius=u(36), cls="android.widget.LinearLayout", rid="brightness_row")
        card.add(View((br[0] + u(32), br[1] + u(30), br[0] + u(142), br[1] + u(140)), cls="android.widget.ImageView",
                      paint=lambda c, v: icons.sun(c, v.bounds, t.accent)))
        card.add(Label((br[0] + u(174), br[1] + u(30), br[2] - u(200), br[1] + u(120)), "Brightness", u(46), t.text,
                       rid="brightness_title", bold=True))
        card.add(Label((br[2] - u(200), br[1] + u(30), br[2] - u(40), br[1] + u(120)), f"{st.brightness}%", u(42),
                       t.sub, align="right", rid="brightness_value"))

        def set_brightness(v: int) -> str:
            st.brightness = v
            return f"set brightness to {v}%"

        card.add(SeekBar((br[0] + u(150), br[1] + u(140), br[2] - u(30), br[1] + u(240)), st.brightness, t.accent,
                         set_brightness, rid="brightness", desc="Brightness"))
        items.append(card)
        items.append(ui.section(ctx, col, "System"))
        items.append(ui.row(ctx, col.next(u(200), u(20)), "Language", st.language, rid="language",
                            title_id="language_title", sub_id="language_value",
                            on_tap=ctx.pusher("language", "opened Language"),
                            lead=lambda c, lr: icons.globe(c, lr, t.accent)))
        items.append(ui.row(ctx, col.next(u(200), u(20)), "About phone", "guilens sim · Android 14", rid="about",
                            lead=lambda c, lr: icons.dot(c, lr, t.accent)))
        views.append(ui.scroll(ctx, (0, ctx.top + ctx.bar, ctx.w, ctx.bottom), "settings_list", items))
        return views

    def screen_language(self, ctx: Ctx) -> list[View]:
        u = ctx.u
        st: SettingsState = ctx.state
        t = ctx.theme
        views: list[View] = [ui.app_bar(ctx, "Language")]
        col = ui.Column(u(40), ctx.top + ctx.bar + u(20), ctx.w - u(40))
        items: list[View] = []
        for lang in LANGUAGES:
            def pick(lang: str = lang) -> str:
                st.language = lang
                ctx.pop()
                return f"set the language to {lang}"

            r = col.next(u(170), u(16))
            v = ui.row(ctx, r, lang, rid="language_option", title_id="language_name", on_tap=pick,
                       trailing="✓" if lang == st.language else "", trailing_color=t.accent)
            v.checkable = True
            v.checked = lang == st.language
            items.append(v)
        views.append(ui.scroll(ctx, (0, ctx.top + ctx.bar, ctx.w, ctx.bottom), "languages", items))
        return views
