// A list page's title with the button that opens its create form: the button shows to a user
// with `permission` and hides while the form is open; the form (given a close callback) comes
// below the title and `hint`. One copy for the pages that list and create one kind of thing.
import { useState, type ReactNode } from 'react';
import { Can } from '../session';

export function ListTitle({ title, permission, open: label, hint, form }: { title: string; permission: string; open: string; hint?: ReactNode; form: (close: () => void) => ReactNode }) {
  const [opened, setOpened] = useState(false);
  return (
    <>
      <div className="title-row">
        <h1>{title}</h1>
        {!opened ? (
          <Can permission={permission}>
            <button type="button" className="primary" onClick={() => setOpened(true)}>
              {label}
            </button>
          </Can>
        ) : null}
      </div>
      {hint}
      {opened ? form(() => setOpened(false)) : null}
    </>
  );
}
