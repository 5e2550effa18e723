import { route } from '../models/route.js';
import { Hotspots } from '../pages/Hotspots.js';
import { Overview } from '../pages/Overview.js';
import { Sessions } from '../pages/Sessions.js';
import { SessionTimeline } from '../pages/SessionTimeline.js';
import { FilterBar } from './FilterBar.js';
import { Header } from './Header.js';

function CurrentPage() {
  switch (route.value.page) {
    case 'overview':
      return <Overview />;
    case 'hotspots':
      return <Hotspots />;
    case 'sessions':
      return <Sessions />;
    case 'session':
      return <SessionTimeline />;
  }
}

/** The whole dashboard: header, filters and the page of the current hash route. */
export function App() {
  const page = route.value.page;
  return (
    <>
      <Header />
      {page !== 'session' && <FilterBar />}
      <main>
        <CurrentPage />
      </main>
    </>
  );
}
