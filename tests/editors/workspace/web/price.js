// Prices are kept in cents so that sums never drift.
export function formatPrice(cents, currency = "EUR") {
  const amount = (cents / 100).toFixed(2);
  return `${amount} ${currency}`;
}
