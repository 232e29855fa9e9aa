//! Search in every script: words inside unspaced runs (Chinese, Japanese, Thai, Lao,
//! Khmer, Burmese), marks inside words (Hindi, Tamil), optional vowel points (Arabic,
//! Hebrew), Korean while typed.

use lango_core::store::{NewMessage, SearchHitKind, Store};
use tempfile::TempDir;

use crate::temp_store;

/// A store whose session "s" holds `texts` as the user's messages.
async fn session_saying(texts: &[&str]) -> (TempDir, Store) {
    let (dir, store) = temp_store().await;
    store.create_session("s", "").await.unwrap();
    for text in texts {
        store
            .append_message("s", NewMessage::new("user", *text))
            .await
            .unwrap();
    }
    (dir, store)
}

/// Each query's hits, best first, as their marked snippets.
async fn assert_snippets(store: &Store, cases: &[(&str, Vec<&str>)]) {
    for (query, snippets) in cases {
        let hits = store.search_page(query, None, 10, 0).await.unwrap().hits;
        let found: Vec<&str> = hits.iter().map(|h| h.snippet.as_str()).collect();
        assert_eq!(&found, snippets, "{query}");
    }
}

#[tokio::test]
async fn korean_and_japanese_words_are_found_while_typed_and_inside_a_run() {
    let (_d, store) = session_saying(&[
        "한국어 검색은 잘 됩니까",
        "ラーメンを、食べました",
        "ガラスの靴",
    ])
    .await;
    assert_snippets(
        &store,
        &[
            ("검색", vec!["한국어 [검색은] 잘 됩니까"]),
            ("검색은", vec!["한국어 [검색은] 잘 됩니까"]),
            ("食べ", vec!["ラーメンを、[食べ]ました"]),
            ("ガラス", vec!["[ガラス]の靴"]),
        ],
    )
    .await;
}

/// An input method shows the syllable being made: "거" on the way to "검", "검ㅅ" and "검새" on
/// the way to "검색". Results must not vanish at each of those steps.
#[tokio::test]
async fn a_korean_word_is_found_while_its_last_syllable_is_still_being_composed() {
    let (_d, store) =
        session_saying(&["한국어 검색은 잘 됩니까", "게임을 했어요", "검토했어요"]).await;
    for (query, snippets) in [
        ("거", vec!["[검토했어요]", "한국어 [검색은] 잘 됩니까"]),
        ("검ㅅ", vec!["한국어 [검색은] 잘 됩니까"]),
        ("검새", vec!["한국어 [검색은] 잘 됩니까"]),
        ("한국어 거", vec!["[한국어] [검색은] 잘 됩니까"]),
        ("ㅈ", vec!["한국어 검색은 [잘] 됩니까"]),
    ] {
        let hits = store.search_page(query, None, 10, 0).await.unwrap().hits;
        let mut found: Vec<&str> = hits.iter().map(|h| h.snippet.as_str()).collect();
        found.sort_unstable();
        assert_eq!(found, snippets, "{query}");
    }
    // A memory note is found by its words once their syllables are finished.
    crate::memory::save_obs(&store, "s", "사용자는 검색 기능을 좋아한다").await;
    assert_snippets(
        &store,
        &[(
            "검색",
            vec![
                "사용자는 [검색] 기능을 좋아한다",
                "한국어 [검색은] 잘 됩니까",
            ],
        )],
    )
    .await;
}

#[tokio::test]
async fn chinese_and_japanese_words_are_found_inside_a_run_of_characters() {
    let (_d, store) = session_saying(&[
        "我喜欢编程和学习Rust",
        "编写程序",
        "東京でラーメンを食べました",
        "we run fast",
    ])
    .await;
    assert_snippets(
        &store,
        &[
            // The characters in a row, as typed: 编 and 程 apart ("编写程序") are not "编程".
            ("编程", vec!["我喜欢[编程]和学习Rust"]),
            ("ラーメン", vec!["東京で[ラーメン]を食べました"]),
            ("食べ", vec!["東京でラーメンを[食べ]ました"]),
            // The Latin word after them is still the word being typed.
            ("学习Ru", vec!["我喜欢编程和[学习Rust]"]),
            ("编 程序", vec!["[编]写[程序]"]),
            // A Latin word touching Chinese is a word of its own, also for the word being typed
            // ("ru" expands into the words it begins: "run" and "rust").
            ("ru", vec!["we [run] fast", "我喜欢编程和学习[Rust]"]),
        ],
    )
    .await;

    // Memory notes alike, as written by the memory and as edited by the user.
    let note = crate::memory::save_obs(&store, "s", "用户喜欢编程").await;
    let reflection = crate::memory::save_refl(&store, "s", "用户住在东京", 1).await;
    store
        .update_reflection(&reflection.id, "用户住在大阪", 3)
        .await
        .unwrap();
    let notes = |query: &'static str| {
        let store = &store;
        async move {
            let hits = store.search_page(query, None, 10, 0).await.unwrap().hits;
            let notes: Vec<(SearchHitKind, String)> = hits
                .into_iter()
                .filter(|h| h.kind != SearchHitKind::Message)
                .map(|h| (h.kind, h.snippet))
                .collect();
            notes
        }
    };
    assert_eq!(
        notes("编程").await,
        [(SearchHitKind::Observation, "用户喜欢[编程]".to_owned())]
    );
    assert_eq!(
        notes("大阪").await,
        [(SearchHitKind::Reflection, "用户住在[大阪]".to_owned())]
    );
    assert!(notes("东京").await.is_empty(), "the edit replaced the text");
    assert!(!note.id.is_empty());
}

#[tokio::test]
async fn hindi_and_tamil_words_keep_their_vowels_so_water_is_not_found_as_to_drink() {
    let (_d, store) = session_saying(&[
        "ठंडा पानी पीजिए",
        "मुझे चाय पीना है",
        "मुझे हिन्दी में खोज चाहिए",
        "आज का दिन अच्छा है",
        "दान करना अच्छा है",
        "தமிழ் மொழி அழகானது",
    ])
    .await;
    assert_snippets(
        &store,
        &[
            // पानी (water) and पीना (to drink) share their consonants, not their vowels.
            ("पानी", vec!["ठंडा [पानी] पीजिए"]),
            ("पीना", vec!["मुझे चाय [पीना] है"]),
            ("दिन", vec!["आज का [दिन] अच्छा है"]),
            // A word with a virama is one word, marked whole, also while typed.
            ("हिन्दी", vec!["मुझे [हिन्दी] में खोज चाहिए"]),
            ("हिन्", vec!["मुझे [हिन्दी] में खोज चाहिए"]),
            ("மொழி", vec!["தமிழ் [மொழி] அழகானது"]),
            ("தமிழ்", vec!["[தமிழ்] மொழி அழகானது"]),
        ],
    )
    .await;

    // Memory notes alike, and memory's retrieval tells the words apart too.
    crate::memory::save_obs(&store, "s", "उपयोगकर्ता को ठंडा पानी पसंद है").await;
    let hits = store.search_page("पानी", None, 10, 0).await.unwrap().hits;
    assert_eq!(hits.len(), 2, "the message and the note: {hits:?}");
    let found = lango_core::memory::knowledge::bm25_candidates(&store, "s", "पीना")
        .await
        .unwrap();
    let texts: Vec<&str> = found.iter().map(|c| c.content.as_str()).collect();
    assert_eq!(texts, ["मुझे चाय पीना है"]);
}

#[tokio::test]
async fn arabic_and_hebrew_are_found_with_or_without_their_vowel_points() {
    let (_d, store) = session_saying(&["كَتَبَ الوَلَدُ الدَّرْسَ", "قرأ الكتاب", "שָׁלוֹם עֲלֵיכֶם"]).await;
    assert_snippets(
        &store,
        &[
            ("كتب", vec!["[كَتَبَ] الوَلَدُ الدَّرْسَ"]),
            ("الدرس", vec!["كَتَبَ الوَلَدُ [الدَّرْسَ]"]),
            ("الكِتَاب", vec!["قرأ [الكتاب]"]),
            ("שלום", vec!["[שָׁלוֹם] עֲלֵיכֶם"]),
        ],
    )
    .await;
}

#[tokio::test]
async fn thai_lao_khmer_and_burmese_words_are_found_inside_a_run_while_typed() {
    let (_d, store) = session_saying(&[
        "ฉันชอบภาษาไทยมาก",
        "สวัสดีครับ ทุกคน",
        "ພາສາລາວງາມ",
        "ខ្ញុំស្រឡាញ់ភាសាខ្មែរ",
        "ကျွန်တော် မြန်မာစကား ပြောတတ်ပါတယ်",
    ])
    .await;
    assert_snippets(
        &store,
        &[
            ("ภาษาไทย", vec!["ฉันชอบ[ภาษาไทย]มาก"]),
            // The last letter typed before its vowel mark: a prefix of the letter with it.
            ("สวัสด", vec!["[สวัสดี]ครับ ทุกคน"]),
            ("ดี", vec!["สวัส[ดี]ครับ ทุกคน"]),
            ("ລາວ", vec!["ພາສາ[ລາວ]ງາມ"]),
            ("ភាសា", vec!["ខ្ញុំស្រឡាញ់[ភាសា]ខ្មែរ"]),
            ("မြန်မာ", vec!["ကျွန်တော် [မြန်မာ]စကား ပြောတတ်ပါတယ်"]),
            // Letters of the word apart are no match.
            ("ภาไทย", vec![]),
        ],
    )
    .await;
}

#[tokio::test]
async fn memory_retrieval_finds_a_chinese_or_thai_word_inside_a_run() {
    let (_d, store) = session_saying(&[
        "我昨天在东京吃了一碗拉面",
        "今天天气很好",
        "ฉันชอบภาษาไทยมาก",
    ])
    .await;
    crate::memory::save_obs(&store, "s", "用户最喜欢的食物是寿司").await;
    let found = |query: &'static str| {
        let store = &store;
        async move {
            lango_core::memory::knowledge::bm25_candidates(store, "s", query)
                .await
                .unwrap()
                .into_iter()
                .map(|c| c.content)
                .collect::<Vec<String>>()
        }
    };
    // The question's words stand inside runs of its own, as they do in the memory.
    assert_eq!(
        found("你还记得我说的那家拉面店吗").await,
        ["我昨天在东京吃了一碗拉面"]
    );
    assert_eq!(found("我喜欢寿司吗？").await, ["用户最喜欢的食物是寿司"]);
    assert_eq!(found("พูดภาษาไทยได้ไหม").await, ["ฉันชอบภาษาไทยมาก"]);
}
