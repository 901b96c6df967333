// A count written with thousands separators (10,000), as 'en-US' formatting writes it, without
// Intl: the first toLocaleString of a process loads ICU's number formats, about 20 ms of every
// start of the CLI (limit messages and notes are built when their modules load).

/** A whole number with a comma every three digits: 50000 → "50,000". */
export const withThousands = (n: number): string => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
