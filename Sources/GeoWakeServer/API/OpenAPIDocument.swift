#if Server
/// The API's OpenAPI 3.1 description, served at `GET /openapi.json` (docs/serve.md explains it).
enum OpenAPIDocument {
  static let json = #"""
    {
      "openapi": "3.1.0",
      "info": {"title": "geowake serve", "version": "1", "description": "The live engine: fixes from many devices in, region events out, durable across restarts."},
      "components": {
        "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        "schemas": {
          "Fix": {
            "type": "object", "required": ["device", "time", "lat", "lon"],
            "properties": {
              "device": {"type": ["string", "number"], "description": "1 to 256 bytes, no control characters"},
              "time": {"type": ["number", "string"], "description": "seconds since 1970 (ms, µs, ns told apart by magnitude) or ISO 8601 with a zone"},
              "lat": {"type": "number", "minimum": -90, "maximum": 90},
              "lon": {"type": "number", "minimum": -180, "maximum": 180},
              "accuracy": {"type": ["number", "null"], "exclusiveMinimum": 0},
              "speed": {"type": ["number", "null"], "minimum": 0},
              "course": {"type": ["number", "null"], "minimum": 0, "exclusiveMaximum": 360},
              "cell": {"type": ["string", "number", "null"]}
            }
          },
          "IngestAnswer": {
            "type": "object", "required": ["accepted", "rejected", "repeated", "events", "lastSeq", "results"],
            "properties": {
              "accepted": {"type": "integer"}, "rejected": {"type": "integer"}, "repeated": {"type": "integer"},
              "events": {"type": "integer"}, "lastSeq": {"type": "integer"},
              "results": {"type": "array", "items": {
                "type": "object", "required": ["index", "line", "status"],
                "properties": {
                  "index": {"type": "integer"}, "line": {"type": "integer"},
                  "status": {"type": "string", "enum": ["accepted", "rejected"]},
                  "field": {"type": "string"}, "reason": {"type": "string"}, "repeated": {"type": "boolean"}
                }
              }}
            }
          },
          "Event": {"type": "object", "required": ["seq", "device", "event"], "description": "a line of geowake analyze --format jsonl, with seq first",
            "properties": {"seq": {"type": "integer"}, "device": {"type": "string"}, "event": {"type": "string"},
              "visit": {"type": "string", "description": "a region event's visit: one id from enter to exit"}}},
          "Feature": {"type": "object", "required": ["type", "geometry"], "description": "a GeoJSON Feature: a Point with a radius property (metres), a Polygon or a MultiPolygon; notifyOnEntry, notifyOnExit, notifyOnDwell properties optional",
            "properties": {"type": {"const": "Feature"}, "id": {"type": ["string", "integer"], "description": "the path's id, or left out", "minLength": 1}, "properties": {"type": ["object", "null"]},
              "geometry": {"type": "object", "required": ["type", "coordinates"], "properties": {"type": {"enum": ["Point", "Polygon", "MultiPolygon"]}, "coordinates": {"type": "array"}}}}},
          "FenceAnswer": {"type": "object", "required": ["region", "version", "events", "lastSeq"],
            "properties": {"region": {"type": "string"}, "created": {"type": "boolean"}, "replaced": {"type": "boolean"}, "removed": {"type": "boolean"},
              "version": {"type": "integer"}, "events": {"type": "integer"}, "lastSeq": {"type": "integer"}}},
          "Clock": {"type": "object", "required": ["time", "unix", "simulated"], "properties": {"time": {"type": "string"}, "unix": {"type": "number"}, "simulated": {"type": "boolean"}}},
          "Error": {"type": "object", "properties": {"error": {"type": "object", "properties": {"message": {"type": "string"}}}}}
        },
        "responses": {
          "Error": {"description": "what was wrong", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
        }
      },
      "security": [{"bearer": []}],
      "paths": {
        "/healthz": {"get": {"summary": "Liveness", "responses": {"200": {"description": "serving"}, "401": {"$ref": "#/components/responses/Error"}}}},
        "/metrics": {"get": {"summary": "Prometheus metrics", "responses": {"200": {"description": "text format 0.0.4", "content": {"text/plain": {"schema": {"type": "string"}}}}, "401": {"$ref": "#/components/responses/Error"}, "403": {"$ref": "#/components/responses/Error"}}}},
        "/openapi.json": {"get": {"summary": "This document", "responses": {"200": {"description": "OpenAPI 3.1", "content": {"application/json": {"schema": {"type": "object"}}}}}}},
        "/v1/fixes": {"post": {
          "summary": "Post fixes: a JSON array or NDJSON; answered once the fixes and their events are durable",
          "requestBody": {"required": true, "content": {
            "application/json": {"schema": {"type": "array", "minItems": 1, "items": {"$ref": "#/components/schemas/Fix"}}},
            "application/x-ndjson": {"schema": {"type": "string"}}}},
          "responses": {
            "200": {"description": "per fix, accepted or rejected with the reason", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/IngestAnswer"}}}},
            "400": {"$ref": "#/components/responses/Error"}, "401": {"$ref": "#/components/responses/Error"},
            "403": {"$ref": "#/components/responses/Error"}, "413": {"$ref": "#/components/responses/Error"},
            "429": {"description": "over the client's rate or in-flight limit: nothing used, send again after Retry-After",
              "headers": {"Retry-After": {"schema": {"type": "integer"}}}, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
            "503": {"$ref": "#/components/responses/Error"}}}},
        "/v1/events": {"get": {
          "summary": "The event stream: Server-Sent Events, or a JSON long poll when limit or wait is given",
          "parameters": [
            {"name": "after", "in": "query", "schema": {"type": "integer", "format": "int64", "minimum": 0, "maximum": 9223372036854775807}, "description": "resume after this seq"},
            {"name": "limit", "in": "query", "schema": {"type": "integer", "minimum": 1, "maximum": 10000}},
            {"name": "wait", "in": "query", "schema": {"type": "number", "minimum": 0, "maximum": 60}},
            {"name": "device", "in": "query", "schema": {"type": "string"}},
            {"name": "Last-Event-ID", "in": "header", "schema": {"type": "integer", "format": "int64", "minimum": 0, "maximum": 9223372036854775807}}],
          "responses": {
            "200": {"description": "events after the cursor", "content": {
              "text/event-stream": {"schema": {"type": "string"}},
              "application/json": {"schema": {"type": "object", "properties": {"events": {"type": "array", "items": {"$ref": "#/components/schemas/Event"}}, "next": {"type": "integer"}}}}}},
            "400": {"$ref": "#/components/responses/Error"}, "401": {"$ref": "#/components/responses/Error"}, "403": {"$ref": "#/components/responses/Error"}}}},
        "/v1/regions": {"get": {"summary": "The fence set, GeoJSON, with its version (the last change's log row; 0: the regions file)", "responses": {"200": {"description": "a FeatureCollection", "content": {"application/json": {"schema": {"type": "object", "required": ["type", "version", "features"], "properties": {"type": {"const": "FeatureCollection"}, "version": {"type": "integer"}, "features": {"type": "array", "items": {"$ref": "#/components/schemas/Feature"}}}}}}}, "401": {"$ref": "#/components/responses/Error"}, "403": {"$ref": "#/components/responses/Error"}}}},
        "/v1/regions/{id}": {
          "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string", "minLength": 1, "maxLength": 256}}],
          "get": {"summary": "One region of the fence set", "responses": {"200": {"description": "a Feature", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Feature"}}}}, "400": {"$ref": "#/components/responses/Error"}, "404": {"$ref": "#/components/responses/Error"}, "401": {"$ref": "#/components/responses/Error"}, "403": {"$ref": "#/components/responses/Error"}}},
          "put": {"summary": "Add or replace a region (admin): every live device is moved onto the new set; a device inside it gets its state at its last fix",
            "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Feature"}}}},
            "responses": {"200": {"description": "replaced", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/FenceAnswer"}}}}, "201": {"description": "added", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/FenceAnswer"}}}}, "400": {"$ref": "#/components/responses/Error"}, "401": {"$ref": "#/components/responses/Error"}, "403": {"$ref": "#/components/responses/Error"}, "413": {"$ref": "#/components/responses/Error"}, "503": {"$ref": "#/components/responses/Error"}}},
          "delete": {"summary": "Remove a region (admin): a device inside it gets no event, the region leaves its list", "responses": {"200": {"description": "removed", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/FenceAnswer"}}}}, "400": {"$ref": "#/components/responses/Error"}, "404": {"$ref": "#/components/responses/Error"}, "401": {"$ref": "#/components/responses/Error"}, "403": {"$ref": "#/components/responses/Error"}, "503": {"$ref": "#/components/responses/Error"}}}
        },
        "/v1/clock": {
          "get": {"summary": "The push devices' clock (--apns): real time, or the simulated clock", "responses": {"200": {"description": "the time", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Clock"}}}}, "404": {"$ref": "#/components/responses/Error"}, "401": {"$ref": "#/components/responses/Error"}, "403": {"$ref": "#/components/responses/Error"}}},
          "post": {"summary": "Move the simulated clock forward (admin), and every push device with it",
            "requestBody": {"required": true, "content": {"application/json": {"schema": {"oneOf": [
              {"type": "object", "required": ["time"], "additionalProperties": false, "properties": {"time": {"type": ["string", "number"], "description": "ISO 8601 with a zone, or Unix seconds"}}},
              {"type": "object", "required": ["advance"], "additionalProperties": false, "properties": {"advance": {"type": "number", "minimum": 0, "description": "seconds"}}}]}}}},
            "responses": {"200": {"description": "the time now", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Clock"}}}}, "400": {"$ref": "#/components/responses/Error"}, "401": {"$ref": "#/components/responses/Error"}, "403": {"$ref": "#/components/responses/Error"}, "404": {"$ref": "#/components/responses/Error"}, "409": {"$ref": "#/components/responses/Error"}, "413": {"$ref": "#/components/responses/Error"}, "503": {"$ref": "#/components/responses/Error"}}}
        },
        "/v1/devices/{id}": {
          "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}],
          "get": {"summary": "A device: the regions it is in, its last fix, its pending events; or, for a device behind an APNs token (--apns), its app's state and its pushes' totals", "responses": {"200": {"description": "the device", "content": {"application/json": {"schema": {"type": "object"}}}}, "404": {"$ref": "#/components/responses/Error"}, "401": {"$ref": "#/components/responses/Error"}, "403": {"$ref": "#/components/responses/Error"}}},
          "delete": {"summary": "End the device's track: its held events are released, its state dropped; a push device's life ends now (the pushes still waiting are held)", "responses": {"200": {"description": "ended", "content": {"application/json": {"schema": {"type": "object"}}}}, "404": {"$ref": "#/components/responses/Error"}, "401": {"$ref": "#/components/responses/Error"}, "403": {"$ref": "#/components/responses/Error"}, "503": {"$ref": "#/components/responses/Error"}}}
        }
      }
    }
    """#
}
#endif
