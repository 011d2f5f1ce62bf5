#include "store/object_store.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "store/continue_token.h"
#include "store/store_test_env.h"

namespace kuota::store {
namespace {

using ObjectStoreTest = testing::OpenStoreTest;

// ---- Create / Get -----------------------------------------------------------

TEST_F(ObjectStoreTest, CreateSetsServerFields) {
  Json cq = MustCreate(kClusterQueues, ClusterQueue("cq"));
  const Json& m = cq["metadata"];
  EXPECT_EQ(m["name"], "cq");
  EXPECT_EQ(m["resourceVersion"], "1");
  EXPECT_EQ(m["generation"], 1);
  EXPECT_EQ(m["creationTimestamp"], "2026-01-01T00:00:00Z");  // whole seconds
  const std::string uid = m["uid"];
  ASSERT_EQ(uid.size(), 36u);
  EXPECT_EQ(uid[8], '-');
  EXPECT_EQ(uid[14], '4');                                          // version 4
  EXPECT_NE(std::string("89ab").find(uid[19]), std::string::npos);  // RFC 4122 variant
  EXPECT_EQ(cq["spec"]["cohort"], "all");
  EXPECT_EQ(store_->CurrentResourceVersion(), 1);

  Result<Json> got = store_->Get(kClusterQueues, "", "cq");
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(*got, cq);
  Json other = MustCreate(kClusterQueues, ClusterQueue("cq2"));
  EXPECT_NE(other["metadata"]["uid"], uid);
  EXPECT_EQ(other["metadata"]["resourceVersion"], "2");
}

// WriteVersion (what NamespaceCache checks): moves with each committed write
// to its resource, before the writer is answered, and with no other.
TEST_F(ObjectStoreTest, WriteVersionFollowsItsResourceOnly) {
  EXPECT_EQ(store_->WriteVersion(kClusterQueues), 0);
  Json cq = MustCreate(kClusterQueues, ClusterQueue("cq"));
  EXPECT_EQ(store_->WriteVersion(kClusterQueues), Rv(cq));
  Json cm = MustCreate(kConfigMaps, ConfigMap("default", "cm"));
  EXPECT_EQ(store_->WriteVersion(kClusterQueues), Rv(cq));
  EXPECT_EQ(store_->WriteVersion(kConfigMaps), Rv(cm));
  cq["spec"]["cohort"] = "other";
  Result<Json> updated = store_->Update(kClusterQueues, cq);
  ASSERT_TRUE(updated.ok()) << updated.status().ToString();
  EXPECT_EQ(store_->WriteVersion(kClusterQueues), Rv(*updated));
  ASSERT_TRUE(store_->Delete(kClusterQueues, "", "cq").ok());
  EXPECT_EQ(store_->WriteVersion(kClusterQueues), store_->CurrentResourceVersion());
  EXPECT_GT(store_->WriteVersion(kClusterQueues), Rv(*updated));
  // A write that fails changes nothing.
  EXPECT_FALSE(store_->Delete(kClusterQueues, "", "cq").ok());
  EXPECT_EQ(store_->WriteVersion(kClusterQueues), store_->CurrentResourceVersion());
  EXPECT_EQ(store_->WriteVersion(kConfigMaps), Rv(cm));
}

TEST_F(ObjectStoreTest, CreateDropsClientSetDeletionTimestamp) {
  Json cm = ConfigMap("default", "c");
  cm["metadata"]["deletionTimestamp"] = "2020-01-01T00:00:00Z";
  cm["metadata"]["resourceVersion"] = "77";
  Json created = MustCreate(kConfigMaps, cm);
  EXPECT_FALSE(created["metadata"].contains("deletionTimestamp"));
  EXPECT_EQ(created["metadata"]["resourceVersion"], "1");
}

TEST_F(ObjectStoreTest, CreateAlreadyExists) {
  MustCreate(kClusterQueues, ClusterQueue("cq"));
  Result<Json> again = store_->Create(kClusterQueues, ClusterQueue("cq", "other"));
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(again.status().message(), "clusterqueues.kueue.x-k8s.io \"cq\" already exists");
  EXPECT_EQ(store_->CurrentResourceVersion(), 1);  // a refused write hands out no version
  // The same name is free in another namespace and in another resource.
  MustCreate(kConfigMaps, ConfigMap("a", "x"));
  MustCreate(kConfigMaps, ConfigMap("b", "x"));
  MustCreate(kWorkloads, Workload("a", "x"));
  EXPECT_EQ(store_->Create(kConfigMaps, ConfigMap("a", "x")).status().code(),
            StatusCode::kAlreadyExists);
}

TEST_F(ObjectStoreTest, CreateRejectsMalformedObjects) {
  struct Case {
    std::string name;
    Json object;
    std::string message;
  };
  const Case cases[] = {
      {"not an object", Json::array({1, 2}), "object: must be a JSON object"},
      {"no name", Json{{"metadata", {{"namespace", "a"}}}},
       "metadata.name: Required value: name or generateName is required"},
      {"metadata not an object", Json{{"metadata", "x"}}, "metadata: must be an object"},
      {"name not a string", Json{{"metadata", {{"name", 3}}}}, "metadata.name: must be a string"},
      {"finalizers not strings", Json{{"metadata", {{"name", "a"}, {"finalizers", {1}}}}},
       "metadata.finalizers[0]: must be a string"},
      {"invalid UTF-8", Json{{"metadata", {{"name", "a"}}}, {"data", "\xff\xfe"}},
       "object: cannot be stored"},
  };
  for (const Case& c : cases) {
    Result<Json> r = store_->Create(kConfigMaps, c.object);
    ASSERT_FALSE(r.ok()) << c.name;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalid) << c.name;
    EXPECT_NE(r.status().message().find(c.message), std::string::npos)
        << c.name << ": " << r.status().message();
  }
  EXPECT_EQ(store_->CurrentResourceVersion(), 0);
}

TEST_F(ObjectStoreTest, NullMetadataFieldsReadAsAbsent) {
  auto w = store_->Watch(kClusterQueues, "", 0);
  ASSERT_TRUE(w.ok());
  Json cq = ClusterQueue("cq");
  cq["metadata"]["namespace"] = nullptr;
  cq["metadata"]["resourceVersion"] = nullptr;
  Json created = MustCreate(kClusterQueues, cq);
  EXPECT_FALSE(created["metadata"].contains("namespace"));
  EXPECT_TRUE(store_->Get(kClusterQueues, "", "cq").ok());
  created["metadata"]["uid"] = nullptr;
  created["spec"]["cohort"] = "x";
  Result<Json> updated = store_->Update(kClusterQueues, created);
  ASSERT_TRUE(updated.ok()) << updated.status().ToString();
  EXPECT_EQ((*updated)["metadata"]["uid"].is_string(), true);
  WatchEvent e;
  ASSERT_TRUE((*w)->Next(&e, std::chrono::seconds(1)));
  EXPECT_EQ(e.type, EventType::kAdded);
  ASSERT_TRUE((*w)->Next(&e, std::chrono::seconds(1)));
  EXPECT_EQ(e.type, EventType::kModified);
}

TEST_F(ObjectStoreTest, GenerateName) {
  std::set<std::string> names;
  for (int i = 0; i < 50; ++i) {
    Json w = Workload("default", "");
    w["metadata"].erase("name");
    w["metadata"]["generateName"] = "job-sample-";
    Json created = MustCreate(kWorkloads, w);
    std::string name = created["metadata"]["name"];
    ASSERT_EQ(name.size(), std::string("job-sample-").size() + 5) << name;
    EXPECT_EQ(name.rfind("job-sample-", 0), 0u) << name;
    for (char c : name.substr(11)) {
      EXPECT_NE(std::string("bcdfghjklmnpqrstvwxz2456789").find(c), std::string::npos) << name;
    }
    EXPECT_EQ(created["metadata"]["generateName"], "job-sample-");
    names.insert(name);
    EXPECT_TRUE(store_->Get(kWorkloads, "default", name).ok());
  }
  EXPECT_EQ(names.size(), 50u);
}

TEST_F(ObjectStoreTest, GetNotFound) {
  Result<Json> r = store_->Get(kClusterQueues, "", "cq");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(r.status().message(), "clusterqueues.kueue.x-k8s.io \"cq\" not found");
  MustCreate(kConfigMaps, ConfigMap("a", "x"));
  EXPECT_EQ(store_->Get(kConfigMaps, "b", "x").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(store_->Get(kWorkloads, "a", "x").status().code(), StatusCode::kNotFound);
}

// ---- Update -----------------------------------------------------------------

TEST_F(ObjectStoreTest, UpdateOptimisticConcurrency) {
  Json cq = MustCreate(kClusterQueues, ClusterQueue("cq"));
  MustCreate(kConfigMaps, ConfigMap("a", "unrelated"));

  Json stale = cq;
  cq["spec"]["cohort"] = "b";
  Result<Json> updated = store_->Update(kClusterQueues, cq);
  ASSERT_TRUE(updated.ok()) << updated.status().ToString();
  EXPECT_EQ((*updated)["metadata"]["resourceVersion"], "3");

  stale["spec"]["cohort"] = "c";
  Result<Json> conflict = store_->Update(kClusterQueues, stale);
  ASSERT_FALSE(conflict.ok());
  EXPECT_EQ(conflict.status().code(), StatusCode::kConflict);
  EXPECT_EQ(conflict.status().message(),
            "Operation cannot be fulfilled on clusterqueues.kueue.x-k8s.io \"cq\": the object "
            "has been modified; please apply your changes to the latest version and try again");

  // Without a resourceVersion the update is unconditional.
  stale["metadata"].erase("resourceVersion");
  Result<Json> forced = store_->Update(kClusterQueues, stale);
  ASSERT_TRUE(forced.ok()) << forced.status().ToString();
  EXPECT_EQ((*forced)["spec"]["cohort"], "c");
  EXPECT_EQ((*forced)["metadata"]["resourceVersion"], "4");

  stale["metadata"]["resourceVersion"] = "abc";
  EXPECT_EQ(store_->Update(kClusterQueues, stale).status().code(), StatusCode::kInvalid);
  Json missing = ClusterQueue("nope");
  Result<Json> nf = store_->Update(kClusterQueues, missing);
  EXPECT_EQ(nf.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(nf.status().message(), "clusterqueues.kueue.x-k8s.io \"nope\" not found");
}

TEST_F(ObjectStoreTest, UpdateKeepsImmutableFields) {
  Json cq = MustCreate(kClusterQueues, ClusterQueue("cq"));
  clock_.Advance(Duration{60'000});
  Json next = cq;
  next["metadata"]["creationTimestamp"] = "1999-01-01T00:00:00Z";
  next["metadata"].erase("uid");
  next["metadata"]["generation"] = 42;
  next["metadata"]["deletionTimestamp"] = "2030-01-01T00:00:00Z";
  next["metadata"]["labels"] = {{"a", "b"}};
  Result<Json> r = store_->Update(kClusterQueues, next);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)["metadata"]["uid"], cq["metadata"]["uid"]);
  EXPECT_EQ((*r)["metadata"]["creationTimestamp"], "2026-01-01T00:00:00Z");
  EXPECT_EQ((*r)["metadata"]["generation"], 1);
  EXPECT_FALSE((*r)["metadata"].contains("deletionTimestamp"));
  EXPECT_EQ((*r)["metadata"]["labels"]["a"], "b");

  Json wrong_uid = *r;
  wrong_uid["metadata"]["uid"] = "00000000-0000-4000-8000-000000000000";
  Result<Json> c = store_->Update(kClusterQueues, wrong_uid);
  EXPECT_EQ(c.status().code(), StatusCode::kConflict);
  EXPECT_NE(c.status().message().find("Precondition failed: UID in precondition"),
            std::string::npos);
}

TEST_F(ObjectStoreTest, GenerationBumpRules) {
  struct Case {
    std::string name;
    std::string resource;
    Json object;
    std::function<void(Json&)> change;
    bool status_only;
    int64_t want_generation;
  };
  const Case cases[] = {
      {"spec change bumps", kClusterQueues, ClusterQueue("a"),
       [](Json& o) { o["spec"]["cohort"] = "x"; }, false, 2},
      {"spec added field bumps", kClusterQueues, ClusterQueue("b"),
       [](Json& o) { o["spec"]["namespaceSelector"] = Json::object(); }, false, 2},
      {"labels do not bump", kClusterQueues, ClusterQueue("c"),
       [](Json& o) {
         o["metadata"]["labels"] = {{"k", "v"}};
       },
       false, 1},
      {"annotations do not bump", kClusterQueues, ClusterQueue("d"),
       [](Json& o) {
         o["metadata"]["annotations"] = {{"k", "v"}};
       },
       false, 1},
      {"status in a plain update does not bump", kClusterQueues, ClusterQueue("e"),
       [](Json& o) {
         o["status"] = {{"pendingWorkloads", 3}};
       },
       false, 1},
      {"status update never bumps", kClusterQueues, ClusterQueue("f"),
       [](Json& o) {
         o["spec"]["cohort"] = "ignored";
         o["status"] = {{"pendingWorkloads", 3}};
       },
       true, 1},
      {"data change bumps a kind without spec", kConfigMaps, ConfigMap("ns", "g"),
       [](Json& o) { o["data"]["k"] = "v"; }, false, 2},
      {"new top-level field bumps a kind without spec", kConfigMaps, ConfigMap("ns", "h"),
       [](Json& o) { o["binaryData"] = Json::object(); }, false, 2},
      {"metadata only does not bump a kind without spec", kConfigMaps, ConfigMap("ns", "i"),
       [](Json& o) {
         o["metadata"]["labels"] = {{"k", "v"}};
       },
       false, 1},
  };
  for (const Case& c : cases) {
    Json created = MustCreate(c.resource, c.object);
    Json next = created;
    c.change(next);
    UpdateOptions opts;
    opts.status_only = c.status_only;
    Result<Json> r = store_->Update(c.resource, next, opts);
    ASSERT_TRUE(r.ok()) << c.name << ": " << r.status().ToString();
    EXPECT_EQ((*r)["metadata"]["generation"], c.want_generation) << c.name;
    EXPECT_GT(Rv(*r), Rv(created)) << c.name;
    // A second, identical update is a no-op: same version, no new generation.
    Result<Json> again = store_->Update(c.resource, *r, opts);
    ASSERT_TRUE(again.ok()) << c.name;
    EXPECT_EQ(*again, *r) << c.name;
  }
}

TEST_F(ObjectStoreTest, NoOpUpdateWritesNothing) {
  Json cq = MustCreate(kClusterQueues, ClusterQueue("cq"));
  int64_t rv = store_->CurrentResourceVersion();
  Result<Json> r = store_->Update(kClusterQueues, cq);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, cq);
  EXPECT_EQ(store_->CurrentResourceVersion(), rv);
}

TEST_F(ObjectStoreTest, StatusOnlyUpdateReplacesOnlyStatus) {
  Json cq = ClusterQueue("cq");
  cq["status"] = {{"pendingWorkloads", 1}, {"conditions", Json::array()}};
  cq = MustCreate(kClusterQueues, cq);

  Json next = cq;
  next["spec"]["cohort"] = "changed";
  next["metadata"]["labels"] = {{"x", "y"}};
  next["status"] = {{"admittedWorkloads", 2}};
  Result<Json> r = store_->Update(kClusterQueues, next, UpdateOptions{.status_only = true});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)["spec"]["cohort"], "all");
  EXPECT_FALSE((*r)["metadata"].contains("labels"));
  EXPECT_EQ((*r)["status"], (Json{{"admittedWorkloads", 2}}));  // replaced, not merged
  EXPECT_EQ((*r)["metadata"]["generation"], 1);
  EXPECT_EQ(*store_->Get(kClusterQueues, "", "cq"), *r);

  // Stale status updates conflict too.
  Result<Json> stale = store_->Update(kClusterQueues, next, UpdateOptions{.status_only = true});
  EXPECT_EQ(stale.status().code(), StatusCode::kConflict);

  // No status in the request clears it.
  Json cleared = *r;
  cleared.erase("status");
  Result<Json> c = store_->Update(kClusterQueues, cleared, UpdateOptions{.status_only = true});
  ASSERT_TRUE(c.ok());
  EXPECT_FALSE(c->contains("status"));
}

TEST_F(ObjectStoreTest, UpdatePlansAgainstTheCallersCopyOnlyWhileItIsCurrent) {
  MustCreate(kClusterQueues, ClusterQueue("cq"));
  const Json read = *store_->Get(kClusterQueues, "", "cq");
  // Given the object just read, as a PATCH does: the update it would be anyway.
  Json next = read;
  next["spec"]["cohort"] = "second";
  UpdateOptions fresh;
  fresh.current = std::make_shared<Json>(read);
  Result<Json> a = store_->Update(kClusterQueues, next, fresh);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ((*a)["spec"]["cohort"], "second");
  EXPECT_EQ((*a)["metadata"]["generation"], 2);
  EXPECT_EQ(*store_->Get(kClusterQueues, "", "cq"), *a);
  // Given a copy the row has moved on from: planned against the row, so the
  // status write keeps the newer spec instead of the copy's.
  Json status = *a;
  status["metadata"].erase("resourceVersion");
  status["status"] = {{"admittedWorkloads", 3}};
  UpdateOptions stale;
  stale.status_only = true;
  stale.current = std::make_shared<Json>(read);
  Result<Json> b = store_->Update(kClusterQueues, status, stale);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ((*b)["spec"]["cohort"], "second");
  EXPECT_EQ((*b)["status"], (Json{{"admittedWorkloads", 3}}));
  EXPECT_EQ(*store_->Get(kClusterQueues, "", "cq"), *b);
}

// ---- Delete and finalizers ----------------------------------------------------

TEST_F(ObjectStoreTest, DeleteWithoutFinalizers) {
  Json cq = MustCreate(kClusterQueues, ClusterQueue("cq"));
  Result<Json> d = store_->Delete(kClusterQueues, "", "cq");
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ((*d)["metadata"]["uid"], cq["metadata"]["uid"]);
  EXPECT_EQ(Rv(*d), 2);  // the deletion's own version
  EXPECT_EQ(store_->CurrentResourceVersion(), 2);
  EXPECT_EQ(store_->Get(kClusterQueues, "", "cq").status().code(), StatusCode::kNotFound);
  Result<Json> again = store_->Delete(kClusterQueues, "", "cq");
  EXPECT_EQ(again.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(again.status().message(), "clusterqueues.kueue.x-k8s.io \"cq\" not found");
  // The name is free again, with a new uid.
  Json reborn = MustCreate(kClusterQueues, ClusterQueue("cq"));
  EXPECT_NE(reborn["metadata"]["uid"], cq["metadata"]["uid"]);
}

TEST_F(ObjectStoreTest, DeletePreconditions) {
  Json cq = MustCreate(kClusterQueues, ClusterQueue("cq"));
  DeleteOptions wrong_uid;
  wrong_uid.precondition_uid = "nope";
  Result<Json> r = store_->Delete(kClusterQueues, "", "cq", wrong_uid);
  ASSERT_EQ(r.status().code(), StatusCode::kConflict);
  EXPECT_EQ(r.status().message(),
            "Operation cannot be fulfilled on clusterqueues.kueue.x-k8s.io \"cq\": Precondition "
            "failed: UID in precondition: nope, UID in object meta: " +
                cq["metadata"]["uid"].get<std::string>());
  DeleteOptions wrong_rv;
  wrong_rv.precondition_resource_version = "999";
  r = store_->Delete(kClusterQueues, "", "cq", wrong_rv);
  ASSERT_EQ(r.status().code(), StatusCode::kConflict);
  EXPECT_NE(r.status().message().find("ResourceVersion in precondition: 999"), std::string::npos);

  DeleteOptions right;
  right.precondition_uid = cq["metadata"]["uid"].get<std::string>();
  right.precondition_resource_version = "1";
  EXPECT_TRUE(store_->Delete(kClusterQueues, "", "cq", right).ok());
}

TEST_F(ObjectStoreTest, FinalizersDelayDeletion) {
  Json w = Workload("team-a", "w");
  w["metadata"]["finalizers"] = {"kueue.x-k8s.io/resource-in-use", "other"};
  w = MustCreate(kWorkloads, w);
  clock_.Advance(Duration{5'500});

  Result<Json> d = store_->Delete(kWorkloads, "team-a", "w");
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ((*d)["metadata"]["deletionTimestamp"], "2026-01-01T00:00:05Z");
  EXPECT_EQ((*d)["metadata"]["deletionGracePeriodSeconds"], 0);
  EXPECT_EQ((*d)["metadata"]["generation"], 2);
  EXPECT_EQ(Rv(*d), 2);
  EXPECT_EQ(*store_->Get(kWorkloads, "team-a", "w"), *d);

  // Deleting again changes nothing.
  Result<Json> again = store_->Delete(kWorkloads, "team-a", "w");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *d);
  EXPECT_EQ(store_->CurrentResourceVersion(), 2);

  // No finalizer may be added now; deletionTimestamp cannot be cleared.
  Json add = *d;
  add["metadata"]["finalizers"].push_back("new");
  Result<Json> refused = store_->Update(kWorkloads, add);
  ASSERT_EQ(refused.status().code(), StatusCode::kInvalid);
  EXPECT_NE(refused.status().message().find("no new finalizers can be added"), std::string::npos);
  Json clear_ts = *d;
  clear_ts["metadata"].erase("deletionTimestamp");
  clear_ts["metadata"]["finalizers"] = {"other"};
  Result<Json> one_left = store_->Update(kWorkloads, clear_ts);
  ASSERT_TRUE(one_left.ok()) << one_left.status().ToString();
  EXPECT_EQ((*one_left)["metadata"]["deletionTimestamp"], "2026-01-01T00:00:05Z");
  // A status update keeps the finalizers, so the object stays.
  Json status = *one_left;
  status["status"] = {{"conditions", Json::array()}};
  status["metadata"]["finalizers"] = Json::array();
  Result<Json> s = store_->Update(kWorkloads, status, UpdateOptions{.status_only = true});
  ASSERT_TRUE(s.ok());
  EXPECT_EQ((*s)["metadata"]["finalizers"], (Json{"other"}));

  // Removing the last finalizer deletes the object.
  Json last = *s;
  last["metadata"].erase("finalizers");
  Result<Json> gone = store_->Update(kWorkloads, last);
  ASSERT_TRUE(gone.ok()) << gone.status().ToString();
  EXPECT_EQ(Rv(*gone), store_->CurrentResourceVersion());
  EXPECT_EQ(store_->Get(kWorkloads, "team-a", "w").status().code(), StatusCode::kNotFound);
}

// ---- Concurrency ---------------------------------------------------------------

TEST_F(ObjectStoreTest, ConcurrentCreatesGetDistinctVersions) {
  constexpr int kThreads = 8, kPerThread = 100;
  std::vector<std::vector<int64_t>> rvs(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        auto r = store_->Create(kConfigMaps, WriterConfigMap(t, i));
        if (r.ok()) rvs[t].push_back(Rv(*r));
      }
    });
  }
  for (auto& th : threads) th.join();
  std::set<int64_t> all;
  for (const auto& v : rvs) {
    EXPECT_EQ(v.size(), static_cast<size_t>(kPerThread));
    EXPECT_TRUE(std::is_sorted(v.begin(), v.end()));
    all.insert(v.begin(), v.end());
  }
  EXPECT_EQ(all.size(), static_cast<size_t>(kThreads * kPerThread));
  EXPECT_EQ(*all.begin(), 1);
  EXPECT_EQ(*all.rbegin(), kThreads * kPerThread);
  EXPECT_EQ(store_->CurrentResourceVersion(), kThreads * kPerThread);
}

TEST_F(ObjectStoreTest, ConcurrentCreatesOfOneNameHaveOneWinner) {
  constexpr int kThreads = 8, kNames = 40;
  std::atomic<int> created{0}, exists{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kNames; ++i) {
        auto r = store_->Create(kClusterQueues, ClusterQueue("cq" + std::to_string(i)));
        if (r.ok()) {
          ++created;
        } else if (r.status().code() == StatusCode::kAlreadyExists) {
          ++exists;
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(created.load(), kNames);
  EXPECT_EQ(exists.load(), kNames * (kThreads - 1));
  EXPECT_EQ(store_->CurrentResourceVersion(), kNames);
}

TEST_F(ObjectStoreTest, ReadModifyWriteLoopsLoseNoIncrement) {
  MustCreate(kConfigMaps, ConfigMap("ns", "counter", {{"n", "0"}}));
  constexpr int kThreads = 8, kIncrements = 25;
  std::atomic<int> conflicts{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kIncrements;) {
        Json cm = *store_->Get(kConfigMaps, "ns", "counter");
        cm["data"]["n"] = std::to_string(std::stoi(cm["data"]["n"].get<std::string>()) + 1);
        auto r = store_->Update(kConfigMaps, cm);
        if (r.ok()) {
          ++i;
        } else {
          EXPECT_EQ(r.status().code(), StatusCode::kConflict);
          ++conflicts;
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  Json cm = *store_->Get(kConfigMaps, "ns", "counter");
  EXPECT_EQ(cm["data"]["n"], std::to_string(kThreads * kIncrements));
  EXPECT_EQ(cm["metadata"]["generation"], 1 + kThreads * kIncrements);
  EXPECT_EQ(store_->CurrentResourceVersion(), 1 + kThreads * kIncrements);
}

// ---- List -----------------------------------------------------------------------

TEST_F(ObjectStoreTest, ListOrdersByNamespaceThenName) {
  for (const auto& [ns, name] : std::vector<std::pair<std::string, std::string>>{
           {"b", "x"}, {"a", "z"}, {"a", "b"}, {"c", "a"}, {"b", "a"}}) {
    MustCreate(kConfigMaps, ConfigMap(ns, name));
  }
  MustCreate(kClusterQueues, ClusterQueue("not-a-configmap"));
  Result<ListResult> all = store_->List(kConfigMaps, {});
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  std::vector<std::string> keys;
  for (const Json& item : all->items) {
    keys.push_back(item["metadata"]["namespace"].get<std::string>() + "/" +
                   item["metadata"]["name"].get<std::string>());
  }
  EXPECT_EQ(keys, (std::vector<std::string>{"a/b", "a/z", "b/a", "b/x", "c/a"}));
  EXPECT_EQ(all->resource_version, 6);
  EXPECT_TRUE(all->continue_token.empty());
  EXPECT_EQ(all->remaining, 0);

  ListOptions in_b;
  in_b.ns = "b";
  Result<ListResult> b = store_->List(kConfigMaps, in_b);
  ASSERT_TRUE(b.ok());
  ASSERT_EQ(b->items.size(), 2u);
  EXPECT_EQ(b->items[0]["metadata"]["name"], "a");

  Result<ListResult> none = store_->List("pods", {});
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->items.empty());
}

TEST_F(ObjectStoreTest, ListSelectors) {
  struct Obj {
    std::string ns, name;
    Json labels;
    std::string phase;
  };
  const Obj objs[] = {
      {"team-a", "w1", {{"app", "train"}, {"tier", "gold"}}, "Running"},
      {"team-a", "w2", {{"app", "serve"}}, "Pending"},
      {"team-b", "w3", {{"app", "train"}, {"tier", "silver"}}, "Running"},
      {"team-b", "w4", Json::object(), ""},
  };
  for (const Obj& o : objs) {
    Json w = Workload(o.ns, o.name, o.labels);
    if (!o.phase.empty()) w["status"] = {{"phase", o.phase}};
    MustCreate(kWorkloads, w);
  }
  struct Case {
    std::string name, labels, fields, ns;
    std::vector<std::string> want;
  };
  const Case cases[] = {
      {"everything", "", "", "", {"w1", "w2", "w3", "w4"}},
      {"equals", "app=train", "", "", {"w1", "w3"}},
      {"not equals includes unlabelled", "app!=train", "", "", {"w2", "w4"}},
      {"in", "tier in (gold,bronze)", "", "", {"w1"}},
      {"notin", "tier notin (gold)", "", "", {"w2", "w3", "w4"}},
      {"exists", "tier", "", "", {"w1", "w3"}},
      {"does not exist", "!tier", "", "", {"w2", "w4"}},
      {"and", "app=train,tier=silver", "", "", {"w3"}},
      {"field name", "", "metadata.name=w2", "", {"w2"}},
      {"field namespace", "", "metadata.namespace=team-b", "", {"w3", "w4"}},
      {"field status", "", "status.phase=Running", "", {"w1", "w3"}},
      {"field not equals", "", "status.phase!=Running", "", {"w2", "w4"}},
      {"field absent", "", "status.phase=", "", {"w4"}},
      {"labels and fields", "app=train", "metadata.namespace!=team-a", "", {"w3"}},
      {"namespace option", "app", "", "team-a", {"w1", "w2"}},
      {"nothing", "app=none", "", "", {}},
  };
  for (const Case& c : cases) {
    ListOptions opts;
    opts.label_selector = c.labels;
    opts.field_selector = c.fields;
    opts.ns = c.ns;
    Result<ListResult> r = store_->List(kWorkloads, opts);
    ASSERT_TRUE(r.ok()) << c.name << ": " << r.status().ToString();
    std::vector<std::string> names;
    for (const Json& item : r->items) names.push_back(item["metadata"]["name"]);
    EXPECT_EQ(names, c.want) << c.name;
  }
}

TEST_F(ObjectStoreTest, ListRejectsBadRequests) {
  ListOptions bad_labels;
  bad_labels.label_selector = "app in train";
  Result<ListResult> r = store_->List(kWorkloads, bad_labels);
  ASSERT_EQ(r.status().code(), StatusCode::kInvalid);
  EXPECT_NE(r.status().message().find("invalid label selector \"app in train\""),
            std::string::npos);
  ListOptions bad_fields;
  bad_fields.field_selector = "metadata.name";
  r = store_->List(kWorkloads, bad_fields);
  ASSERT_EQ(r.status().code(), StatusCode::kInvalid);
  EXPECT_NE(r.status().message().find("invalid field selector"), std::string::npos);
  ListOptions bad_continue;
  bad_continue.continue_token = "garbage!";
  r = store_->List(kWorkloads, bad_continue);
  ASSERT_EQ(r.status().code(), StatusCode::kInvalid);
  EXPECT_NE(r.status().message().find("continue"), std::string::npos);
  ListOptions bad_limit;
  bad_limit.limit = -1;
  EXPECT_EQ(store_->List(kWorkloads, bad_limit).status().code(), StatusCode::kInvalid);
}

class ListPaginationTest : public testing::StoreTest {
 protected:
  void SetUp() override {
    StoreTest::SetUp();
    StoreOptions o = Options();
    o.sync = false;  // 1,000 creates; durability is tested elsewhere
    OpenStore(o);
    // 1,000 objects over 7 namespaces, created out of key order; every
    // third one is labelled.
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([this, t] {
        for (int i = t; i < 1000; i += 4) {
          Json labels = Json::object();
          if (i % 3 == 0) labels["third"] = "yes";
          char name[16];
          std::snprintf(name, sizeof name, "w%04d", (i * 7919) % 1000);
          auto r = store_->Create(kWorkloads, Workload("ns" + std::to_string(i % 7), name, labels));
          EXPECT_TRUE(r.ok()) << r.status().ToString();
        }
      });
    }
    for (auto& th : threads) th.join();
  }

  // Pages through with `opts` and returns "ns/name" keys in order.
  std::vector<std::string> PageThrough(ListOptions opts, int64_t want_total,
                                       std::vector<ListResult>* pages = nullptr) {
    std::vector<std::string> keys;
    while (true) {
      Result<ListResult> page = store_->List(kWorkloads, opts);
      EXPECT_TRUE(page.ok()) << page.status().ToString();
      if (!page.ok()) break;
      for (const Json& item : page->items) {
        keys.push_back(item["metadata"]["namespace"].get<std::string>() + "/" +
                       item["metadata"]["name"].get<std::string>());
      }
      EXPECT_LE(static_cast<int64_t>(page->items.size()), opts.limit);
      if (page->continue_token.empty()) {
        EXPECT_EQ(page->remaining, 0);
      } else {
        EXPECT_EQ(static_cast<int64_t>(page->items.size()), opts.limit);
        EXPECT_EQ(page->remaining, want_total - static_cast<int64_t>(keys.size()));
      }
      if (pages != nullptr) pages->push_back(*page);
      if (page->continue_token.empty()) break;
      opts.continue_token = page->continue_token;
    }
    return keys;
  }
};

TEST_F(ListPaginationTest, LimitAndContinueVisitEveryObjectOnce) {
  ListOptions opts;
  opts.limit = 100;
  std::vector<ListResult> pages;
  std::vector<std::string> keys = PageThrough(opts, 1000, &pages);
  ASSERT_EQ(pages.size(), 10u);
  EXPECT_EQ(pages[0].remaining, 900);
  EXPECT_EQ(pages[8].remaining, 100);
  EXPECT_EQ(pages[0].resource_version, 1000);
  ASSERT_EQ(keys.size(), 1000u);
  EXPECT_TRUE(std::is_sorted(keys.begin(), keys.end()));
  EXPECT_EQ(std::set<std::string>(keys.begin(), keys.end()).size(), 1000u);

  Result<ListResult> all = store_->List(kWorkloads, {});
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->items.size(), 1000u);
}

TEST_F(ListPaginationTest, UnevenPagesWithSelectorsAndNamespace) {
  ListOptions opts;
  opts.limit = 33;
  opts.label_selector = "third=yes";
  std::vector<std::string> keys = PageThrough(opts, 334);
  EXPECT_EQ(keys.size(), 334u);  // i % 3 == 0 for i in [0, 1000)
  EXPECT_TRUE(std::is_sorted(keys.begin(), keys.end()));

  ListOptions in_ns;
  in_ns.limit = 50;
  in_ns.ns = "ns3";
  keys = PageThrough(in_ns, 143);  // i % 7 == 3
  EXPECT_EQ(keys.size(), 143u);
  for (const std::string& k : keys) EXPECT_EQ(k.rfind("ns3/", 0), 0u) << k;

  ListOptions fields;
  fields.limit = 10;
  fields.field_selector = "metadata.namespace=ns0";
  fields.label_selector = "third=yes";
  keys = PageThrough(fields, 48);  // i % 21 == 0
  EXPECT_EQ(keys.size(), 48u);
}

TEST_F(ListPaginationTest, ContinueSurvivesWritesBetweenPages) {
  ListOptions opts;
  opts.limit = 400;
  Result<ListResult> first = store_->List(kWorkloads, opts);
  ASSERT_TRUE(first.ok());
  const Json& last = first->items.back();
  // Delete the last item returned and add one before and one after it.
  ASSERT_TRUE(
      store_->Delete(kWorkloads, last["metadata"]["namespace"], last["metadata"]["name"]).ok());
  MustCreate(kWorkloads, Workload("ns0", "a-before"));
  MustCreate(kWorkloads, Workload("ns9", "z-after"));
  opts.continue_token = first->continue_token;
  opts.limit = 0;
  Result<ListResult> rest = store_->List(kWorkloads, opts);
  ASSERT_TRUE(rest.ok()) << rest.status().ToString();
  EXPECT_EQ(rest->items.size(), 601u);  // 600 left + z-after
  EXPECT_EQ(rest->items.back()["metadata"]["name"], "z-after");
  EXPECT_EQ(rest->resource_version, store_->CurrentResourceVersion());
}

// Readers that page through everything (a watch's initial state) skip the
// count and may take the stored text as is.
TEST_F(ListPaginationTest, UncountedPagesOfStoredText) {
  ListOptions opts;
  opts.limit = 100;
  opts.count_remaining = false;
  opts.as_text = true;
  std::vector<std::string> keys;
  int pages = 0;
  while (true) {
    Result<ListResult> page = store_->List(kWorkloads, opts);
    ASSERT_TRUE(page.ok()) << page.status().ToString();
    ++pages;
    EXPECT_TRUE(page->items.empty());
    EXPECT_EQ(page->remaining, 0);
    // The same page parsed: the texts are what parsing would give.
    ListOptions parsed = opts;
    parsed.as_text = false;
    Result<ListResult> same = store_->List(kWorkloads, parsed);
    ASSERT_TRUE(same.ok());
    ASSERT_EQ(same->items.size(), page->texts.size());
    for (size_t i = 0; i < page->texts.size(); ++i) {
      EXPECT_EQ(page->texts[i], same->items[i].dump());
      keys.push_back(same->items[i]["metadata"]["namespace"].get<std::string>() + "/" +
                     same->items[i]["metadata"]["name"].get<std::string>());
    }
    // A full page always has a token (the next may be empty); a short one never.
    EXPECT_EQ(page->continue_token.empty(), page->texts.size() < 100u);
    if (page->continue_token.empty()) break;
    opts.continue_token = page->continue_token;
  }
  EXPECT_EQ(pages, 11);  // ten full pages, then an empty one
  ASSERT_EQ(keys.size(), 1000u);
  EXPECT_TRUE(std::is_sorted(keys.begin(), keys.end()));
  EXPECT_EQ(std::set<std::string>(keys.begin(), keys.end()).size(), 1000u);

  ListOptions selected;
  selected.as_text = true;
  selected.label_selector = "third=yes";
  Result<ListResult> bad = store_->List(kWorkloads, selected);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalid);
}

TEST_F(ListPaginationTest, PagesWithinANamespaceResumeByName) {
  ListOptions opts;
  opts.ns = "ns3";
  opts.limit = 50;
  opts.count_remaining = false;
  std::vector<std::string> keys;
  for (bool more = true; more;) {
    Result<ListResult> page = store_->List(kWorkloads, opts);
    ASSERT_TRUE(page.ok()) << page.status().ToString();
    for (const Json& item : page->items) keys.push_back(item["metadata"]["name"]);
    more = !page->continue_token.empty();
    opts.continue_token = page->continue_token;
  }
  EXPECT_EQ(keys.size(), 143u);  // 50 + 50 + 43, all of ns3
  EXPECT_TRUE(std::is_sorted(keys.begin(), keys.end()));
  EXPECT_EQ(std::set<std::string>(keys.begin(), keys.end()).size(), 143u);

  // A token from before the namespace resumes at its start; from after, at its end.
  opts.limit = 0;
  opts.continue_token = ContinueToken{1, "ns2", "w9999"}.Encode();
  Result<ListResult> from_before = store_->List(kWorkloads, opts);
  ASSERT_TRUE(from_before.ok());
  EXPECT_EQ(from_before->items.size(), 143u);
  opts.continue_token = ContinueToken{1, "ns4", ""}.Encode();
  Result<ListResult> from_after = store_->List(kWorkloads, opts);
  ASSERT_TRUE(from_after.ok());
  EXPECT_TRUE(from_after->items.empty());
}

// Once List returns, every event up to its resourceVersion has reached the
// watchers already open (a watch's initial state relies on it).
TEST_F(ListPaginationTest, ListReturnsOnlyAfterItsVersionReachedWatchers) {
  int64_t seen = store_->CurrentResourceVersion();  // the watch starts here
  Result<std::unique_ptr<Watcher>> watcher = store_->Watch("", "", 0);
  ASSERT_TRUE(watcher.ok());
  std::atomic<bool> stop{false};
  std::thread writer([&] {
    for (int i = 0; !stop; ++i) {
      EXPECT_TRUE(store_->Create(kConfigMaps, ConfigMap("ns", "cm-" + std::to_string(i))).ok());
    }
  });
  for (int i = 0; i < 200; ++i) {
    ListOptions one;
    one.limit = 1;
    one.count_remaining = false;
    Result<ListResult> page = store_->List(kClusterQueues, one);
    ASSERT_TRUE(page.ok());
    WatchEvent event;
    while ((*watcher)->Next(&event, std::chrono::milliseconds(0))) seen = event.resource_version;
    ASSERT_GE(seen, page->resource_version);
  }
  stop = true;
  writer.join();
}

}  // namespace
}  // namespace kuota::store
