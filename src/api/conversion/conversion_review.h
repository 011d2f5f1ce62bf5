// The answer to an apiextensions.k8s.io/v1 ConversionReview: what a CRD
// conversion webhook (Kueue's /convert) returns to kube-apiserver. Each of
// request.objects is converted to request.desiredAPIVersion with the rules of
// kueue_conversion.h; one object that cannot be converted fails the whole
// review (kube-apiserver's contract), with a message naming the object.
// Pure function; thread-safe.
#pragma once

#include <nlohmann/json.hpp>

namespace kuota::conversion {

// The ConversionReview to send back for `review` (the parsed request body).
// Never throws: a review that is not one (no request, no uid, a desired
// version outside kueue.x-k8s.io v1beta1/v1beta2, objects that are not Kueue
// kinds) is answered with response.result.status "Failure" and a message
// saying what is wrong; response.uid echoes request.uid whenever it is a string.
nlohmann::json ReviewConversion(const nlohmann::json& review);

}  // namespace kuota::conversion
