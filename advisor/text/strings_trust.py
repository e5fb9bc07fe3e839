"""Strings of the things the tool no longer trusts (issue 25): damaged history rows, unusable displays."""

from __future__ import annotations

EN: dict[str, str] = {
    "history.damaged": "warning: {n} run(s) in the history could not be read and are not listed: {ids}",
    "gui.display_unusable": "the display {display} cannot be opened ({why}); no window can be shown here",
    "gui.display_hint": "run `spec-advisor check` in this terminal, or fix DISPLAY / WAYLAND_DISPLAY; "
                        "QT_QPA_PLATFORM=offscreen works for --screenshot",
}

ZH: dict[str, str] = {
    "history.damaged": "警告：历史中有 {n} 条运行记录无法读取，未列出：{ids}",
    "gui.display_unusable": "无法打开显示 {display}（{why}）；这里无法显示窗口",
    "gui.display_hint": "请在此终端运行 `spec-advisor check`，或修正 DISPLAY / WAYLAND_DISPLAY；"
                        "--screenshot 可以使用 QT_QPA_PLATFORM=offscreen",
}
