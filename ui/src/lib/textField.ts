/**
 * Whether an event's target is a field the user types into (a text input, a textarea or
 * editable content): there the keys that edit text (Home, End, arrows) are the field's, not
 * a shortcut of the view around it.
 */

/** Input types without a caret: what a key press there does is never text editing. */
const NOT_TYPED = new Set(['button', 'checkbox', 'color', 'file', 'hidden', 'image', 'radio', 'range', 'reset', 'submit']);

/** Whether `target` is a text field (see the module comment). */
export function isTextField(target: EventTarget | null): target is HTMLElement {
  if (target instanceof HTMLTextAreaElement) return true;
  if (target instanceof HTMLInputElement) return !NOT_TYPED.has(target.type);
  return target instanceof HTMLElement && target.isContentEditable;
}
