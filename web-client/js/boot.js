// Applies the stored theme and board colours before the first paint: a
// classic script loaded by <head> (the content security policy allows no
// inline script), so the page never flashes in the wrong theme. prefs.js
// keeps 'chameleon.prefs' (an account's preferences are cached there too).
(function boot() {
  try {
    var p = JSON.parse(localStorage.getItem('chameleon.prefs') || '{}') || {};
    var d = document.documentElement;
    if (p.theme === 'light' || p.theme === 'dark') d.setAttribute('data-theme', p.theme);
    if (typeof p.board === 'string' && /^[a-z]{1,12}$/.test(p.board)) d.setAttribute('data-board', p.board);
  } catch (e) { /* no storage, or not JSON: the defaults */ }
}());
