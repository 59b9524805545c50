// The table card's print button (inline handlers are not allowed by our Content-Security-Policy).
document.getElementById('print-button')?.addEventListener('click', () => print());
