/**
 * Key presses that belong to an input method (the IMEs of Chinese, Japanese, Korean and
 * other scripts): the Enter that picks a candidate and the Escape that drops one are the
 * IME's, never a command of ours — sending, saving a rename, opening a search hit,
 * stopping the reply.
 *
 * `isComposing` alone misses one: WebKit (the webview on macOS and Linux) ends the
 * composition before the confirming Enter's keydown, which then says `isComposing: false`
 * (WebKit bug 165004). Every key the IME handled has keyCode 229 ("Process"), which no
 * physical key produces.
 */

/** What of a keyboard event tells whether an IME handled it. */
export interface ImeKeyLike {
  isComposing?: boolean;
  keyCode?: number;
}

/** Whether an IME is handling this key press (so it must do nothing else). */
export function isImeKey(event: ImeKeyLike): boolean {
  return event.isComposing === true || event.keyCode === 229;
}
