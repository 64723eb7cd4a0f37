"""The footer: Textual's, less the keys that only fit a wide screen.

At 80 columns the footer must still end with ? Help and q Quit, so an action that is shown only when it
applies and is said elsewhere on a narrow screen (f and F: the inspector's line names them; the
presenter's n and p: the table's heading does) is left out of the compact footer
(tinytui.actions.Action.narrow)."""

from __future__ import annotations

from textual.widgets import Footer
from textual.widgets._footer import FooterKey

from tinytui.tui.actions import ACTIONS
from tinytui.tui.widgets.lean import SettledSize

WIDE_ONLY = frozenset(f"do('{a.id}')" for a in ACTIONS if a.show and not a.narrow)


class SettledKey(SettledSize, FooterKey):
    """A footer key whose new width (b's "Backward" becoming "Forward") is placed by the layout that
    measured it, without a second layout of the whole screen for it (lean.SettledSize)."""

    _label_width = 0  # of the label last made (to measure the key or to draw it)

    def render(self):  # type: ignore[no-untyped-def]
        label = super().render()
        self._label_width = label.cell_len
        return label

    def render_lines(self, crop):  # type: ignore[no-untyped-def]
        # A key measured before its last change of style (a key just mounted is measured compact, then
        # takes the footer's style) would be drawn cut ("q Qui"): Textual leaves that to the layout
        # a key's new size asks for, and a settled key asks for none. Drawn at a width not its own, it
        # asks for a layout itself. (Not in render: a layout calls that to measure the key.)
        lines = super().render_lines(crop)
        width = self.content_size.width
        footer = self.parent
        if width and self._label_width != width and isinstance(footer, TinyFooter):
            self.clear_cached_dimensions()
            footer.call_later(footer.arrange_keys_again)  # (a key just mounted may not pass one on yet)
        return lines


class TinyFooter(Footer):
    _composed: tuple | None = None  # what the keys shown were made from (see bindings_changed)

    def on_mount(self) -> None:  # after Footer.on_mount (Textual calls each class's handler, base last)
        self.call_next(self._relabel_at_once)

    def arrange_keys_again(self) -> None:
        """Measure the keys and lay the footer out again (one was drawn at a width not its own)."""
        self._clear_arrangement_cache()  # Textual keeps the keys' places while no key asks for a layout
        self.refresh(layout=True)

    def _relabel_at_once(self) -> None:
        # Relabel within the change that asked for it (an action calls refresh_bindings), not a message
        # later: a key whose width changes is then in that change's layout, not in a second one.
        signal = self.screen.bindings_updated_signal
        signal.unsubscribe(self)
        signal.subscribe(self, self._bindings_changed_here, immediate=True)

    def _bindings_changed_here(self, screen) -> None:
        with self._context():  # as in the footer's own message loop (compose binds data to it)
            self.bindings_changed(screen)

    def _signature(self) -> tuple:
        shown = tuple(
            (b.key, b.description, b.action, enabled, tooltip, b.group.description if b.group else None)
            for (_, b, enabled, tooltip) in self.screen.active_bindings.values()
            if b.show
        )
        return shown, self.compact, self.show_command_palette

    def bindings_changed(self, screen) -> None:
        # Textual builds every key of the footer again whenever any widget refreshes its bindings (each
        # edit, each cursor move onto a computed cell): a fifth of an edit's time. Only when what the
        # footer shows changed is it built again, and then the keys already mounted are given the new
        # keys' words (entering the walk mounted some fifty keys, each styled afresh: most of `b`).
        if self._composed is not None and screen is self.screen:
            signature = self._signature()
            if signature == self._composed:
                return
            if self.app.app_focus and self._relabel():
                self._composed = signature
                return
        super().bindings_changed(screen)

    def _relabel(self) -> bool:
        """Show the bindings of now in the keys already mounted; False when the footer has groups of
        keys (Textual's own rebuild handles those)."""
        shown = [w for w in self.children if isinstance(w, FooterKey)]
        bindings = self.screen.active_bindings.values()
        if len(shown) != len(self.children) or any(b.group for (_, b, _, _) in bindings if b.show):
            return False
        made = list(self.compose())  # the keys Textual would mount now, not mounted
        wanted = [w for w in made if isinstance(w, FooterKey)]
        if len(wanted) != len(made):
            return False
        palette = [w for w in shown if w.has_class("-command-palette")]
        keys = [w for w in shown if not w.has_class("-command-palette")]
        new_palette = [w for w in wanted if w.has_class("-command-palette")]
        new_keys = [w for w in wanted if not w.has_class("-command-palette")]
        if len(palette) != len(new_palette):
            return False
        for old, new in [*zip(keys, new_keys), *zip(palette, new_palette)]:
            _copy(new, old)
            old.display = True
        if len(new_keys) > len(keys):
            extra = new_keys[len(keys) :]
            if palette:
                self.mount(*extra, before=palette[0])
            else:
                self.mount(*extra)
        for spare in keys[len(new_keys) :]:
            spare.display = False  # kept for the next time more keys show (a mount is a layout more)
        return True

    def compose(self):
        if self._bindings_ready:
            self._composed = self._signature()
        for widget in super().compose():
            if self.compact and isinstance(widget, FooterKey) and widget.action in WIDE_ONLY:
                continue
            if type(widget) is FooterKey:
                widget.__class__ = SettledKey  # the same key (its data bindings kept), settled
            yield widget

    def watch_compact(self) -> None:
        # the keys it leaves out depend on it: lay the footer out again when it changes (app._fit sets it)
        if self.is_mounted:
            self.call_after_refresh(self.recompose)


def _copy(new: FooterKey, old: FooterKey) -> None:
    """Give a mounted key another binding's key, words, action and state."""
    before = (old.key_display, old.description)
    old.key, old.key_display, old.description, old.action = (
        new.key,
        new.key_display,
        new.description,
        new.action,
    )
    old.tooltip = new.tooltip
    if old._disabled != new._disabled:
        old._disabled = new._disabled
        old.set_class(new._disabled, "-disabled")
    if before != (old.key_display, old.description):
        old.refresh(layout=True)
