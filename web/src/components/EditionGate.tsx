// The head of a page whose feature needs an edition: the page's title, and on a lower edition the
// "Not in this edition" state instead of its content (Templates and Sharing share it).
import type { ReactNode } from 'react';
import { editionAtLeast, useSession } from '../session';

/** `needs`: the sentence's subject and verb, e.g. "Node sharing needs". */
export function EditionPage({ title, needs, edition, children }: { title: string; needs: string; edition: 'pro' | 'enterprise'; children: ReactNode }) {
  const { me } = useSession();
  return (
    <section>
      <h1>{title}</h1>
      {editionAtLeast(me.edition, edition) ? (
        children
      ) : (
        <div className="state error forbidden" role="alert">
          <h2>Not in this edition</h2>
          <p>
            {needs} the {edition} edition; this server runs the {me.edition} edition.
          </p>
        </div>
      )}
    </section>
  );
}
