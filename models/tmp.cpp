namespace locksim {}
