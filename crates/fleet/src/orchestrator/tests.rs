use super::*;

fn member(share: impl IntoIterator<Item = u64>) -> Member {
    Member {
        hello: crate::worker::hello("w", "v"),
        accounts: (0, 1),
        target: String::new(),
        clock_before: None,
        clock_after: None,
        self_test_rate: None,
        records: Vec::new(),
        session: Session::new().unwrap(),
        share: share.into_iter().map(|i| (i, planned(i))).collect(),
        seen: HashSet::new(),
        batches: BTreeMap::new(),
        end: End::Running,
        detail: None,
        faults: Vec::new(),
    }
}

/// The hash planned at place `i` in these tests.
fn planned(i: u64) -> B256 {
    B256::with_last_byte(i as u8 + 1)
}

#[test]
fn a_record_whose_hash_is_not_the_planned_transactions_is_a_fault() {
    let mut m = member([0, 1]);
    let mut right = sent(0, 5);
    right.hash = Some(planned(0));
    m.take(0, &[right]).unwrap();
    let mut forged = sent(1, 5);
    forged.hash = Some(B256::repeat_byte(0xee));
    let e = m.take(1, &[forged]).unwrap_err();
    assert!(
        e.contains("transaction 1 as 0xeeee") && e.contains("not the transaction planned"),
        "{e}"
    );
    assert_eq!(m.records.len(), 1, "nothing of a refused batch is taken");
}

fn sent(index: u64, replied_ns: u64) -> wire::Sent {
    wire::Sent {
        index,
        intended_ns: 0,
        sent_ns: 1,
        replied_ns,
        hash: None,
        error_class: None,
        error: None,
    }
}

#[test]
fn a_batch_is_taken_once_inside_the_share_and_a_different_repeat_is_a_fault() {
    let mut m = member([0, 1, 2, 3]);
    m.take(0, &[sent(0, 5), sent(1, 5)]).unwrap();
    // The same batch again (a repeat at least once): harmless.
    m.take(0, &[sent(0, 5), sent(1, 5)]).unwrap();
    assert_eq!(m.records.len(), 2);
    // The same number with other records: a fault, nothing taken.
    let e = m.take(0, &[sent(0, 1_000_000_000_000)]).unwrap_err();
    assert!(
        e.contains("batch 0 came twice with different records"),
        "{e}"
    );
    // Outside the share.
    let e = m.take(1, &[sent(9, 5)]).unwrap_err();
    assert!(
        e.contains("transaction 9, which is not in its share"),
        "{e}"
    );
    // A place reported before, in a new batch, or twice in one.
    let e = m.take(2, &[sent(1, 5)]).unwrap_err();
    assert!(e.contains("transaction 1 a second time"), "{e}");
    let e = m.take(3, &[sent(2, 5), sent(2, 5)]).unwrap_err();
    assert!(e.contains("transaction 2 a second time"), "{e}");
    assert_eq!(m.records.len(), 2, "no refused batch left a record");
    m.take(4, &[sent(2, 5), sent(3, 5)]).unwrap();
    m.done(4, 2, false);
    assert!(m.faults.is_empty(), "{:?}", m.faults);
}

#[test]
fn a_done_that_is_not_what_arrived_or_a_share_not_reported_is_a_fault() {
    // A forged done right after the start: nothing arrived.
    let mut m = member([0, 1, 2]);
    m.done(0, 0, false);
    assert_eq!(m.faults.len(), 1, "{:?}", m.faults);
    assert!(
        m.faults[0].contains("3 of its 3 transactions not reported"),
        "{:?}",
        m.faults
    );
    // Counts that are not what arrived.
    let mut m = member([0, 1]);
    m.take(0, &[sent(0, 5), sent(1, 5)]).unwrap();
    m.done(40, 1, false);
    assert!(
        m.faults[0].contains("after 40 records in 1 batches, but 2 records"),
        "{:?}",
        m.faults
    );
    // Told to stop: a short share is not a fault.
    let mut m = member([0, 1]);
    m.take(0, &[sent(0, 5)]).unwrap();
    m.done(1, 1, true);
    assert!(m.faults.is_empty(), "{:?}", m.faults);
}

#[test]
fn accounts_split_evenly_into_disjoint_ranges_and_too_few_are_refused() {
    assert_eq!(split_accounts(10, 3), Some(vec![(0, 3), (3, 3), (6, 4)]));
    assert_eq!(split_accounts(3, 3), Some(vec![(0, 1), (1, 1), (2, 1)]));
    assert_eq!(split_accounts(2, 3), None);
    let split = split_accounts(10, 3).unwrap();
    assert_eq!(
        owners(&[0, 2, 3, 5, 6, 9, 10], &split),
        vec![Some(0), Some(0), Some(1), Some(1), Some(2), Some(2), None]
    );
}
