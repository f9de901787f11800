// An experiment's result as profile records: one `experiment` record, then one record per
// progress point (the names are record/vocabulary.h's).
#pragma once

#include "experiment/experiment_result.h"
#include "record/profile_format.h"

namespace coz {

void append_experiment(const ExperimentResult& result, RecordBuilder* block);

}  // namespace coz
