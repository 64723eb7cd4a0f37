"""The backward pass: the gradient of the loss for every parameter and tensor, the chain rule of each
part of the forward pass, and the backward walk's table. Imports the forward core; no UI."""
