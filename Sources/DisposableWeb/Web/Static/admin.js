// The admin panel: deleting an account asks twice — the button, then this dialog, "Cancel" on the
// left and "Continue" on the right. Without scripts the server asks on a page of its own instead.
const dialog = document.getElementById('delete-dialog');
let pending = null;

document.addEventListener('submit', (event) => {
  const form = event.target.closest('form[data-delete-account]');
  if (!form || form.elements.confirmed.value === '1') return;
  event.preventDefault();
  pending = form;
  document.getElementById('delete-dialog-title').textContent = form.dataset.deleteAccount;
  dialog.returnValue = '';
  dialog.showModal();
  document.getElementById('delete-cancel').focus();
});

dialog.addEventListener('close', () => {
  if (dialog.returnValue === 'continue' && pending) {
    pending.elements.confirmed.value = '1';
    pending.submit();
  }
  pending = null;
});
